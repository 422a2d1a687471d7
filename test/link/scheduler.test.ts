import { spawn } from 'node:child_process';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { FakeClock, realClock } from '../../src/clock.js';
import { PreciseScheduler } from '../../src/link/scheduler.js';
import { newTimer } from '../../src/link/timer-heap.js';
import { TIMER_THREAD_SLOTS } from '../../src/link/timer-thread.js';
import { ThreadWaker, WakeLearner } from '../../src/link/waker.js';

/** A fake clock that counts reads: each poll of a lingering scheduler reads it once. */
class CountingClock extends FakeClock {
  reads = 0;
  override nowNs(): number {
    this.reads++;
    return super.nowNs();
  }
}

const ticks = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await tick();
};

/**
 * Ends a test whose scheduler still lingers on a fake clock: its polls read a clock that no longer
 * moves, so it would poll for good and take a core from the files after it in a shared worker
 * (the Node-lines subset runs them in one). The clock jumps past any linger; a few turns see it.
 */
const stopLingering = async (clock: FakeClock, s: PreciseScheduler): Promise<void> => {
  clock.setNs(clock.nowNs() + 1_000_000_000);
  await ticks(5);
  s.close();
};

describe('PreciseScheduler', () => {
  it('tells its wake listeners how late each wake from a sleep came, until they stop', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const clock = new FakeClock(0);
      // Wakes 1 ms before each deadline, on setTimeout (a fake clock's waker).
      const s = new PreciseScheduler({ clock, spinWindowNs: 1_000_000, lingerNs: 0 });
      const wakes: [number, number][] = [];
      const stop = s.watchWakes((lateNs, nowNs) => wakes.push([lateNs, nowNs]));
      let fired = 0;
      s.schedule(50_000_000, () => fired++);
      clock.setNs(49_300_000);
      vi.advanceTimersByTime(49);
      expect(wakes).toEqual([[300_000, 49_300_000]]);
      clock.setNs(50_000_000);
      await ticks(3);
      expect(fired).toBe(1);
      stop();
      s.schedule(100_000_000, () => fired++);
      clock.setNs(99_100_000);
      vi.advanceTimersByTime(49);
      clock.setNs(100_000_000);
      await ticks(3);
      expect(fired).toBe(2);
      expect(wakes).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fires timers in due order once their time comes, and not before', async () => {
    const clock = new FakeClock(0);
    const s = new PreciseScheduler({ clock, spinWindowNs: 10_000_000 });
    const fired: string[] = [];
    s.schedule(3_000, () => fired.push('c'));
    s.schedule(1_000, () => fired.push('a'));
    s.schedule(2_000, () => fired.push('b'));
    await ticks(3);
    expect(fired).toEqual([]);
    clock.setNs(2_000);
    await ticks(3);
    expect(fired).toEqual(['a', 'b']);
    clock.setNs(5_000);
    await ticks(3);
    expect(fired).toEqual(['a', 'b', 'c']);
  });

  it('fires at most maxFiresPerTurn due timers a turn, the rest in the turns after, in due order', async () => {
    const clock = new FakeClock(0);
    const s = new PreciseScheduler({ clock, spinWindowNs: 10_000_000, lingerNs: 0, maxFiresPerTurn: 8 });
    const fired: number[] = [];
    for (let i = 19; i >= 0; i--) s.schedule(1_000 + i, () => fired.push(i));
    await ticks(2);
    clock.setNs(5_000);
    const counts: number[] = [];
    for (let turn = 0; turn < 4; turn++) {
      await tick();
      counts.push(fired.length);
    }
    expect(counts).toEqual([8, 16, 20, 20]);
    expect(fired).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('holds no due timer back more than 0.5 ms: when more fall due each turn than the cap lets out, the late ones go at once', async () => {
    const clock = new FakeClock(0);
    const s = new PreciseScheduler({ clock, spinWindowNs: 10_000_000, lingerNs: 0, maxFiresPerTurn: 8 });
    const fired: number[] = [];
    for (let i = 0; i < 20; i++) s.schedule(1_000 + i * 100_000, () => fired.push(i)); // due 0.001 ms to 1.901 ms
    await ticks(2);
    clock.setNs(1_901_000);
    await tick();
    // Fifteen are 0.5 ms late or more (due by 1.401 ms): all of them go, then the cap stops the rest.
    expect(fired).toEqual(Array.from({ length: 15 }, (_, i) => i));
    await tick();
    expect(fired).toHaveLength(20);
  });

  it('after a zero-delay delivery it polls for the linger, then stops (an idle proxy spins nothing)', async () => {
    const clock = new CountingClock(0);
    const s = new PreciseScheduler({ clock, lingerNs: 1_000_000 });
    s.delivered(0, { activeWindow: -1 });
    await ticks(10);
    expect(clock.reads).toBeGreaterThanOrEqual(8);
    clock.setNs(999_000);
    const before = clock.reads;
    await ticks(10);
    expect(clock.reads - before).toBeGreaterThanOrEqual(8); // still inside the linger
    clock.setNs(1_000_001);
    await ticks(3);
    const after = clock.reads;
    await ticks(20);
    expect(clock.reads).toBe(after);
  });

  it('with no linger a zero-delay delivery starts no polling', async () => {
    const clock = new CountingClock(0);
    const s = new PreciseScheduler({ clock, lingerNs: 0 });
    s.delivered(0, { activeWindow: -1 });
    await ticks(10);
    expect(clock.reads).toBe(0);
  });

  it('lingers for one connection (two lines), not while three or more lines deliver within a window', async () => {
    const clock = new CountingClock(0);
    const s = new PreciseScheduler({ clock, lingerNs: 1_000_000 });
    const [up, down, other] = [{ activeWindow: -1 }, { activeWindow: -1 }, { activeWindow: -1 }];
    s.delivered(0, up);
    s.delivered(10_000, down);
    s.delivered(20_000, up);
    await ticks(10);
    expect(clock.reads).toBeGreaterThanOrEqual(8); // one connection: lingering

    clock.setNs(1_100_000); // past that linger; a new window in which three lines deliver
    await ticks(3);
    s.delivered(1_100_000, up);
    s.delivered(1_110_000, down);
    s.delivered(1_120_000, other);
    clock.setNs(2_150_000); // past the linger the first of them started
    await ticks(3);
    const busy = clock.reads;
    // The next window remembers the busy one: no linger, no polling.
    s.delivered(2_150_000, up);
    s.delivered(2_160_000, down);
    await ticks(20);
    expect(clock.reads).toBe(busy);
    // ...but once a whole window has passed with one connection, it does again.
    clock.setNs(3_300_000);
    s.delivered(3_300_000, up);
    const quiet = clock.reads;
    await ticks(10);
    expect(clock.reads - quiet).toBeGreaterThanOrEqual(8);
    await stopLingering(clock, s);
  });
});

describe('catching up in a socket callback', () => {
  it('fires what is due by then, in due order, synchronously, and nothing later; the rest keeps its wake', async () => {
    const clock = new FakeClock(0);
    // Far deadlines: the scheduler sleeps on setTimeout, so only catchUp can fire them here.
    const s = new PreciseScheduler({ clock, lingerNs: 0 });
    const fired: string[] = [];
    const b = newTimer(() => fired.push('b'));
    s.schedule(10_000_000_000, () => {
      fired.push('a');
      s.arm(b, 10_000_500_000); // a line re-arms its timer for its next chunk while being fired
    });
    s.schedule(10_002_000_000, () => fired.push('c'));
    s.catchUp(9_999_999_999);
    expect(fired).toEqual([]);
    clock.setNs(10_001_000_000);
    s.catchUp(10_001_000_000);
    expect(fired).toEqual(['a', 'b']);
    expect(s.size).toBe(1);
    // What is left still fires by itself once due.
    clock.setNs(10_002_000_000);
    await vi.waitFor(() => expect(fired).toEqual(['a', 'b', 'c']), { timeout: 2_000, interval: 20 });
    s.close();
  });

  it('with nothing due costs no clock read and fires nothing', () => {
    const clock = new CountingClock(0);
    const s = new PreciseScheduler({ clock, lingerNs: 0 });
    s.catchUp(1_000);
    s.schedule(5_000_000, () => expect.unreachable());
    const reads = clock.reads;
    s.catchUp(4_999_999);
    expect(clock.reads).toBe(reads);
    s.close();
  });
});

describe('PreciseScheduler on the timer thread (real clock)', () => {
  it.each(['timerfd', 'thread'] as const)('on the %s: fires far deadlines in order, never early, and polls for a small part of the wait', async (wake) => {
    const s = new PreciseScheduler({ wake });
    expect(s.wakeKindInUse).toBe(wake);
    const dueNs: number[] = [];
    const firedAtNs: number[] = [];
    const order: number[] = [];
    const start = realClock.nowNs();
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 20; i++) {
        const due = start + (20 - i) * 5_000_000; // scheduled in reverse: the heap orders them
        dueNs[i] = due;
        s.schedule(due, () => {
          firedAtNs[i] = realClock.nowNs();
          order.push(i);
          if (order.length === 20) resolve();
        });
      }
    });
    const elapsedNs = realClock.nowNs() - start;
    // It slept on a precise waker (setTimeout's wakes report no wake-up estimate).
    expect(s.wakeAfterNs(5_000_000)).toBeGreaterThan(0);
    s.close();
    expect(order).toEqual([...Array(20).keys()].reverse());
    for (let i = 0; i < 20; i++) expect(firedAtNs[i]).toBeGreaterThanOrEqual(dueNs[i]!);
    // The old scheduler polled the last 2 ms of every 5 ms gap (40%); asleep in between, it polls
    // only the learned wake margin (tens to hundreds of us), so even a loaded machine stays far under.
    expect(s.pollNs / elapsedNs).toBeLessThan(0.3);
  });

  it('falls back on setTimeout when the timer thread has no slot left, and still fires', async () => {
    const hogs = Array.from({ length: TIMER_THREAD_SLOTS + 1 }, () => new PreciseScheduler({ wake: 'thread' }));
    const fired: number[] = [];
    await Promise.all(
      hogs.map(
        (s, i) =>
          new Promise<void>((resolve) =>
            s.schedule(realClock.nowNs() + 3_000_000, () => {
              fired.push(i);
              resolve();
            }),
          ),
      ),
    );
    for (const s of hogs) s.close();
    expect(fired.sort((a, b) => a - b)).toEqual([...Array(TIMER_THREAD_SLOTS + 1).keys()]);
  });

  it('re-arming one timer moves it instead of adding a second', async () => {
    const s = new PreciseScheduler();
    const timer = newTimer(() => fired.push(realClock.nowNs()));
    const fired: number[] = [];
    const now = realClock.nowNs();
    s.arm(timer, now + 50_000_000);
    s.arm(timer, now + 2_000_000);
    expect(s.size).toBe(1);
    await vi.waitUntil(() => fired.length === 1, { timeout: 5000 });
    expect(fired[0]).toBeGreaterThanOrEqual(now + 2_000_000);
    expect(fired[0]).toBeLessThan(now + 50_000_000);
    s.close();
  });
});

describe('lingering after a timed delivery', () => {
  /** Whether the scheduler polls while the fake clock stands still: with no timer waiting, whether it lingers. */
  const polling = async (clock: CountingClock): Promise<boolean> => {
    await ticks(3);
    const before = clock.reads;
    await ticks(10);
    return clock.reads - before >= 8;
  };
  // A poll window longer than any wait here: the scheduler never sleeps on a real timer.
  const POLLED = 100_000_000;
  /** A scheduler that lingers 300 us after timed deliveries, on a clock that counts its reads. */
  const timedLingering = (): { clock: CountingClock; s: PreciseScheduler } => {
    const clock = new CountingClock(0);
    return { clock, s: new PreciseScheduler({ clock, spinWindowNs: POLLED, timedLingerNs: 300_000 }) };
  };

  it('does not linger after one with no timed linger (the default off the real clock)', async () => {
    const clock = new CountingClock(0);
    const s = new PreciseScheduler({ clock, lingerNs: 1_000_000, spinWindowNs: POLLED });
    s.schedule(1_000, () => undefined);
    clock.setNs(2_000);
    expect(await polling(clock)).toBe(false);
  });

  it('polls after it until the next read comes, and no longer; again after the next while the client follows at once', async () => {
    const { clock, s } = timedLingering();
    const line = { activeWindow: -1 };
    s.schedule(1_000, () => undefined);
    clock.setNs(2_000);
    expect(await polling(clock)).toBe(true); // the first one lingers: nothing learned yet
    clock.setNs(100_000);
    expect(await polling(clock)).toBe(true); // 98 us on: still lingering
    s.delivered(100_000, line); // the next request, sent with no delay
    expect(await polling(clock)).toBe(false); // it came: no polling for Redis's reply
    s.schedule(20_000_000, () => undefined);
    clock.setNs(20_001_000);
    expect(await polling(clock)).toBe(true); // followed at once last time: lingers
    clock.setNs(20_400_000); // nothing came within 300 us
    expect(await polling(clock)).toBe(false);
  });

  it('stops lingering for a client that thinks between requests, and starts again once it does not', async () => {
    const { clock, s } = timedLingering();
    const line = { activeWindow: -1 };
    s.schedule(1_000_000, () => undefined);
    clock.setNs(1_001_000);
    expect(await polling(clock)).toBe(true);
    clock.setNs(6_000_000); // the next request 5 ms later: the linger polled for nothing
    s.delivered(6_000_000, line);
    s.schedule(10_000_000, () => undefined);
    clock.setNs(10_001_000);
    expect(await polling(clock)).toBe(false); // learned: no linger
    // The next request comes 50 us after this delivery and waits at a line (a delay up): seen
    // while asleep, from its time.
    clock.setNs(10_051_000);
    s.schedule(15_000_000, () => undefined);
    clock.setNs(15_001_000);
    expect(await polling(clock)).toBe(true);
    await stopLingering(clock, s);
  });

  it('does not linger after a timed delivery nothing came in before (a line arming again as it fires is not a read)', async () => {
    const { clock, s } = timedLingering();
    const third = newTimer(() => undefined);
    s.schedule(1_000, () => undefined);
    // The line's next chunk, due 199 us later; as it leaves, the line arms for the one behind it.
    s.schedule(200_000, () => s.arm(third, 5_000_000));
    clock.setNs(2_000);
    await ticks(3); // the first leaves and lingers, to 302 us
    clock.setNs(201_000);
    await ticks(3); // the second leaves: no read came since the first, so no linger of its own
    s.cancel(third);
    clock.setNs(303_000);
    expect(await polling(clock)).toBe(false);
  });

  it('does not linger while more than one connection\'s timers fire', async () => {
    const { clock, s } = timedLingering();
    for (let i = 0; i < 3; i++) s.schedule(1_000 + i, () => undefined);
    clock.setNs(2_000);
    expect(await polling(clock)).toBe(false);
  });
});

describe('lingering only on links with no delay', () => {
  it('after a timed delivery a zero-delay one does not linger, until no timed one has left for lingerUntimedNs', async () => {
    const clock = new CountingClock(0);
    const s = new PreciseScheduler({ clock, lingerNs: 1_000_000, spinWindowNs: 10_000_000, lingerUntimedNs: 50_000_000 });
    s.schedule(1_000, () => undefined);
    clock.setNs(2_000);
    await ticks(5); // the timed delivery leaves
    s.delivered(3_000, { activeWindow: -1 }); // the request that follows, sent up with no delay
    const after = clock.reads;
    await ticks(20);
    expect(clock.reads).toBe(after); // no linger: a reply to it comes a delay later
    clock.setNs(50_002_001); // 50 ms with no timed delivery: a link with no delay again
    s.delivered(50_002_001, { activeWindow: -1 });
    const quiet = clock.reads;
    await ticks(10);
    expect(clock.reads - quiet).toBeGreaterThanOrEqual(8);
    await stopLingering(clock, s);
  });
});

describe('WakeLearner', () => {
  it('asks early by the mean lateness plus four mean deviations, within its bounds', () => {
    const l = new WakeLearner(200_000, 30_000, 2_000_000);
    for (let i = 0; i < 200; i++) l.observe(0, 100_000); // every wake exactly 100 us late
    expect(l.meanLateNs).toBeCloseTo(100_000, -2);
    expect(l.earlyNs).toBeGreaterThanOrEqual(100_000);
    expect(l.earlyNs).toBeLessThan(110_000);
    for (let i = 0; i < 200; i++) l.observe(0, i % 2 === 0 ? 50_000 : 150_000); // 100 +- 50 us
    expect(l.earlyNs).toBeGreaterThan(250_000);
    expect(l.earlyNs).toBeLessThan(310_000);
    for (let i = 0; i < 200; i++) l.observe(0, 0); // early wakes count as on time
    expect(l.earlyNs).toBe(30_000);
    for (let i = 0; i < 200; i++) l.observe(0, 50_000_000); // a stalled machine: capped
    expect(l.earlyNs).toBe(2_000_000);
  });
});

describe('the timer thread and the process', () => {
  it('keeps a process alive while a wake is armed, and not after: the process fires its timer, then exits', async () => {
    const url = new URL('../../dist/link/shared-scheduler.js', import.meta.url).href;
    const code = `const { sharedScheduler } = await import(${JSON.stringify(url)});
      const s = sharedScheduler();
      s.schedule(s.clock.nowNs() + 3e6, () => console.log('fired'));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exitCode = await new Promise<number | null>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('exit', (c) => {
        clearTimeout(kill);
        resolve(c);
      });
    });
    expect(out.trim()).toBe('fired');
    expect(exitCode).toBe(0);
  });
});

describe('the poll budget', () => {
  it('with deadlines too dense to sleep between, polls at most about its share and still fires each in order', async () => {
    const s = new PreciseScheduler({ maxPollShare: 0.25 });
    const firedAtNs: number[] = [];
    const start = realClock.nowNs() + 2_000_000;
    const n = 400;
    await new Promise<void>((resolve) => {
      for (let i = 0; i < n; i++) {
        // One every 100 us: always inside the wake margin, so without a budget it would poll all along.
        s.schedule(start + i * 100_000, () => {
          firedAtNs.push(realClock.nowNs());
          if (firedAtNs.length === n) resolve();
        });
      }
    });
    const elapsedNs = realClock.nowNs() - start;
    s.close();
    for (let i = 0; i < n; i++) expect(firedAtNs[i]).toBeGreaterThanOrEqual(start + i * 100_000);
    for (let i = 1; i < n; i++) expect(firedAtNs[i]).toBeGreaterThanOrEqual(firedAtNs[i - 1]!);
    // The budget is checked before each sleep, so a window can overshoot it by one poll run.
    expect(s.pollNs / elapsedNs).toBeLessThan(0.7);
  });
});

describe('ThreadWaker', () => {
  it('wakes at the time asked on the main thread clock: never before, and not a whole clock offset after', async () => {
    for (let i = 0; i < 5; i++) {
      let wokeNs = 0;
      let askedNs = 0;
      const woke = new Promise<void>((resolve) => {
        const w = ThreadWaker.open(
          () => {
            wokeNs = realClock.nowNs();
            w!.close();
            resolve();
          },
          () => undefined,
        );
        askedNs = realClock.nowNs() + 3_000_000;
        w!.set(askedNs);
      });
      await woke;
      expect(wokeNs).toBeGreaterThanOrEqual(askedNs);
      // Threads keep their own clock origins; mixing them up would shift every wake by the
      // difference (the worker started well after this process did).
      expect(wokeNs - askedNs).toBeLessThan(30_000_000);
    }
  });

  /** A waker whose wakes are stamped; `close()` gives its slot back. */
  function stampedWaker(): { waker: ThreadWaker; wokeNs: number[]; nextWake: () => Promise<void> } {
    const wokeNs: number[] = [];
    let notify: (() => void) | undefined;
    const waker = ThreadWaker.open(
      () => {
        wokeNs.push(realClock.nowNs());
        notify?.();
      },
      () => undefined,
    )!;
    return { waker, wokeNs, nextWake: () => new Promise<void>((resolve) => (notify = resolve)) };
  }

  it('moved later, wakes once, at the later time', async () => {
    const { waker, wokeNs, nextWake } = stampedWaker();
    const startNs = realClock.nowNs();
    waker.set(startNs + 3_000_000);
    waker.set(startNs + 8_000_000);
    await nextWake();
    waker.close();
    expect(wokeNs).toHaveLength(1);
    expect(wokeNs[0]).toBeGreaterThanOrEqual(startNs + 8_000_000);
  });

  it('moved earlier, wakes at the earlier time, not the first one asked', async () => {
    const { waker, wokeNs, nextWake } = stampedWaker();
    const startNs = realClock.nowNs();
    waker.set(startNs + 2_000_000_000);
    waker.set(startNs + 5_000_000);
    await nextWake();
    waker.close();
    expect(wokeNs[0]).toBeGreaterThanOrEqual(startNs + 5_000_000);
    expect(wokeNs[0]).toBeLessThan(startNs + 1_000_000_000);
  });

  it('cleared, then the thread woken for another slot, then asked again for the same time: still wakes', async () => {
    // The thread sleeps until T for slot A; A is cleared; another slot's wake makes the thread look
    // again and sleep for good (A wants nothing). Asking A for T again must reach it: the thread no
    // longer sleeps until T. (With a notify skipped there, a resend 200 ms out under loss hung.)
    const a = stampedWaker();
    const b = stampedWaker();
    const startNs = realClock.nowNs();
    const tNs = startNs + 150_000_000;
    a.waker.set(tNs);
    a.waker.clear();
    b.waker.set(realClock.nowNs() + 2_000_000);
    await b.nextWake();
    b.waker.close();
    a.waker.set(tNs);
    await a.nextWake();
    a.waker.close();
    expect(a.wokeNs).toHaveLength(1);
    expect(a.wokeNs[0]).toBeGreaterThanOrEqual(tNs);
  });

  it('after the thread passed a time moved later, a time between the two still wakes on time', async () => {
    // set(T1), set(T3), then T1 passes: a set(T2) between the two must still wake at T2, not T3.
    const { waker, wokeNs, nextWake } = stampedWaker();
    const startNs = realClock.nowNs();
    waker.set(startNs + 2_000_000);
    waker.set(startNs + 2_000_000_000);
    // Nothing to wait on: the thread passing T1 without waking is what it must not show. T1 + 8 ms.
    await new Promise((r) => setTimeout(r, 10));
    const t2Ns = realClock.nowNs() + 5_000_000;
    waker.set(t2Ns);
    await nextWake();
    waker.close();
    expect(wokeNs).toHaveLength(1);
    expect(wokeNs[0]).toBeGreaterThanOrEqual(t2Ns);
    expect(wokeNs[0]).toBeLessThan(startNs + 1_000_000_000);
  });

  it('cleared, does not wake; armed again, wakes at the new time', async () => {
    const { waker, wokeNs, nextWake } = stampedWaker();
    const startNs = realClock.nowNs();
    waker.set(startNs + 2_000_000);
    waker.clear();
    const t2Ns = startNs + 30_000_000;
    waker.set(t2Ns);
    await nextWake();
    waker.close();
    expect(wokeNs).toHaveLength(1);
    expect(wokeNs[0]).toBeGreaterThanOrEqual(t2Ns);
  });
});
