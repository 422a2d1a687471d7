import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { realClock } from '../../src/clock.js';
import { openAlarm, timerfdBinding } from '../../src/link/native-alarm.js';
import { PreciseScheduler } from '../../src/link/scheduler.js';
import { TimerfdWaker, type SleepMargins } from '../../src/link/waker.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ADDON = 'native/timerfd/build/Release/timerfd.node';

/** A waker whose wakes are stamped. */
function stampedWaker(): { waker: TimerfdWaker; wokeNs: number[]; nextWake: () => Promise<void> } {
  const wokeNs: number[] = [];
  let notify: (() => void) | undefined;
  const waker = TimerfdWaker.open(() => {
    wokeNs.push(realClock.nowNs());
    notify?.();
  });
  if (waker === undefined) throw new Error('the timerfd addon did not load');
  return { waker, wokeNs, nextWake: () => new Promise<void>((resolve) => (notify = resolve)) };
}

/** Runs a node program from the repo root; its stdout and exit status. */
function node(source: string): { out: string; status: number | null; ms: number } {
  const started = Date.now();
  const r = spawnSync(process.execPath, ['-e', source], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  return { out: r.stdout.trim(), status: r.status, ms: Date.now() - started };
}

// npm's install step builds the addon (scripts/build-native.mjs); on Linux a missing one is a broken build.
describe.runIf(process.platform === 'linux')('the timerfd alarm (native/timerfd)', () => {
  it('was built at install and loads', () => {
    expect(timerfdBinding()).not.toBeNull();
  });

  it('wakes at the time asked on the main thread clock: never before, and not a clock offset after', async () => {
    for (let i = 0; i < 5; i++) {
      const { waker, wokeNs, nextWake } = stampedWaker();
      const askedNs = realClock.nowNs() + 3_000_000;
      waker.set(askedNs);
      await nextWake();
      waker.close();
      expect(wokeNs[0]).toBeGreaterThanOrEqual(askedNs);
      expect(wokeNs[0]! - askedNs).toBeLessThan(30_000_000);
    }
  });

  it('moved later, wakes once, at the later time; moved earlier, at the earlier one', async () => {
    const later = stampedWaker();
    const startNs = realClock.nowNs();
    later.waker.set(startNs + 3_000_000);
    later.waker.set(startNs + 8_000_000);
    await later.nextWake();
    expect(later.wokeNs).toHaveLength(1);
    expect(later.wokeNs[0]).toBeGreaterThanOrEqual(startNs + 8_000_000);
    later.waker.close();

    const earlier = stampedWaker();
    earlier.waker.set(startNs + 2_000_000_000);
    earlier.waker.set(startNs + 5_000_000);
    await earlier.nextWake();
    earlier.waker.close();
    expect(earlier.wokeNs[0]).toBeGreaterThanOrEqual(startNs + 5_000_000);
    expect(earlier.wokeNs[0]).toBeLessThan(startNs + 1_000_000_000);
  });

  it('a time already past wakes at once; cleared, does not wake; armed again, wakes at the new time', async () => {
    const past = stampedWaker();
    past.waker.set(realClock.nowNs() - 1_000_000);
    await past.nextWake();
    past.waker.close();
    expect(past.wokeNs).toHaveLength(1);

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

  it('a deadline of never (Infinity) or past any uptime arms no wake, and replaces one armed before', async () => {
    const { waker, wokeNs } = stampedWaker();
    waker.set(realClock.nowNs() + 2_000_000);
    waker.set(Infinity);
    const far = stampedWaker();
    far.waker.set(1e30);
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
    waker.close();
    far.waker.close();
    expect(wokeNs).toHaveLength(0);
    expect(far.wokeNs).toHaveLength(0);
  });

  it('after close, the waker ignores set and clear, and the addon refuses the closed handle', () => {
    const { waker } = stampedWaker();
    waker.close();
    expect(() => waker.set(realClock.nowNs() + 1_000_000)).not.toThrow();
    expect(() => waker.clear()).not.toThrow();
    const b = timerfdBinding()!;
    const handle = b.create(() => undefined);
    b.close(handle);
    expect(() => b.set(handle, 1)).toThrow(/not an open alarm/);
    expect(() => b.set({}, 1)).toThrow(/not an open alarm/);
    expect(() => b.set(b.create(() => undefined), Number.NaN)).toThrow(/finite number/);
    expect(() => b.create(1 as unknown as () => void)).toThrow(/needs a function/);
  });

  it('keeps the process alive while armed, and only then, like a pending setTimeout', () => {
    const prelude = `const b = require('./${ADDON}'); const now = () => { const t = process.hrtime(); return t[0] * 1e9 + t[1]; };`;
    const armed = node(`${prelude} const a = b.create(() => { console.log('woke'); b.close(a); }); b.set(a, now() + 300e6);`);
    expect(armed).toMatchObject({ out: 'woke', status: 0 });
    expect(armed.ms).toBeGreaterThanOrEqual(300);
    const cleared = node(`${prelude} const a = b.create(() => console.log('woke')); b.set(a, now() + 5e9); b.clear(a);`);
    expect(cleared).toMatchObject({ out: '', status: 0 });
    expect(cleared.ms).toBeLessThan(5000);
    const idle = node(`${prelude} b.create(() => console.log('woke'));`);
    expect(idle).toMatchObject({ out: '', status: 0 });
  });

  it('an exception thrown by the wake callback is uncaught, as from any I/O callback', () => {
    const r = node(
      `const b = require('./${ADDON}'); const t = process.hrtime();` +
        `process.on('uncaughtException', (e) => { console.log('caught ' + e.message); process.exit(0); });` +
        `const a = b.create(() => { throw new Error('boom'); }); b.set(a, t[0] * 1e9 + t[1] + 1e6);`,
    );
    expect(r).toMatchObject({ out: 'caught boom', status: 0 });
  });

  it('runs inside a worker thread too, and a worker that exits with an alarm open leaves no handle behind', () => {
    const r = node(
      `const { Worker } = require('node:worker_threads');` +
        `const w = new Worker("const b = require('./${ADDON}'); const { parentPort } = require('node:worker_threads'); const t = process.hrtime();" +` +
        `" const a = b.create(() => { parentPort.postMessage('woke'); b.set(a, 1e18); process.exit(0); }); b.set(a, t[0] * 1e9 + t[1] + 2e6);", { eval: true });` +
        `w.on('message', (m) => console.log(m)); w.on('exit', (c) => console.log('exit ' + c));`,
    );
    expect(r).toMatchObject({ out: 'woke\nexit 0', status: 0 });
  });

  it('openAlarm gives an alarm whose set, clear and close reach the addon', async () => {
    let woke = 0;
    const alarm = openAlarm(() => woke++)!;
    alarm.set(realClock.nowNs() + 1_000_000);
    await new Promise<void>((resolve) => setTimeout(resolve, 30));
    alarm.set(realClock.nowNs() + 1_000_000);
    alarm.clear();
    await new Promise<void>((resolve) => setTimeout(resolve, 30));
    alarm.close();
    expect(woke).toBe(1);
  });
});

describe.runIf(process.platform === 'linux')('PreciseScheduler on the timerfd alarm', () => {
  it('is the default with the real clock, and falls back on the thread or setTimeout when asked', () => {
    for (const [wake, inUse] of [
      [undefined, 'timerfd'],
      ['thread', 'thread'],
      ['timeout', 'timeout'],
    ] as const) {
      const s = new PreciseScheduler(wake && { wake });
      expect(s.wakeKindInUse).toBe(inUse);
      s.close();
      expect(s.wakeKindInUse).toBe('timeout');
    }
  });

  it('closed while asleep, wakes for the deadline it slept to on setTimeout instead', { timeout: 10_000 }, async () => {
    const s = new PreciseScheduler();
    const dueNs = realClock.nowNs() + 30_000_000;
    const firedNs = new Promise<number>((resolve) => s.schedule(dueNs, () => resolve(realClock.nowNs())));
    s.close();
    expect(s.wakeKindInUse).toBe('timeout');
    const lateNs = (await firedNs) - dueNs;
    expect(lateNs).toBeGreaterThanOrEqual(0);
    // setTimeout's whole milliseconds, then a poll: late by a loaded machine's turn at most, never lost.
    expect(lateNs).toBeLessThan(20_000_000);
  });

  it('a wake that comes early enough sleeps again for the rest instead of spinning through it', async () => {
    // A 20 ms sleep wakes its learned margin early; what is left, less a short wake's own margin, is
    // slept again when it is at least the waker's shortest sleep. Before, every deadline was one
    // sleep and a spin. The long margin is held at 0.9 ms here, past the 0.5 ms a learner reaches: a
    // wake that late would rarely leave room on a VM whose 20 ms sleeps wake 0.3 ms late, and this
    // test is of the choice after the wake, not of the learning. What is left stays under a
    // millisecond, so the second sleep is a short one. Whether a wake is on time is still the
    // machine's: on a loaded one it can come later than the whole margin, and then there is rightly
    // nothing to sleep. So each deadline's first wake is recorded, and the rule is checked on what it left.
    const sets = vi.spyOn(TimerfdWaker.prototype, 'set');
    // Its deadlines are armed from outside their fire, as a client's reads would be: no timed linger between them.
    const s = new PreciseScheduler({ timedLingerNs: 0 });
    const margins = (s as unknown as { margins: SleepMargins }).margins;
    const minSleepNs = (s as unknown as { waker: TimerfdWaker }).waker.minSleepNs;
    const long = margins.long;
    Object.defineProperty(long, 'earlyNs', { get: () => 900_000 });
    const observe = long.observe.bind(long);
    const wakes: { atNs: number; shortEarlyNs: number }[] = [];
    long.observe = (askedNs, nowNs) => {
      wakes.push({ atNs: nowNs, shortEarlyNs: margins.short.earlyNs });
      observe(askedNs, nowNs);
    };
    // What the first wake left before the deadline, beyond a short sleep's margin and the shortest
    // sleep, as the scheduler saw it when it chose between sleeping again and spinning (the wake's
    // own stamp comes earlier: on a busy VM the loop can run that choice 100 us or more later, and
    // then rightly spins). The first deadline only warms the code up.
    const proto = PreciseScheduler.prototype as unknown as { sleepsAgain(leftNs: number, overBudget: boolean): boolean };
    const sleepsAgain = proto.sleepsAgain;
    // Each choice with the sleeps armed so far: the first wake's is the one made after one sleep.
    const choices: { roomNs: number; sleeps: number; overBudget: boolean; atNs: number }[] = [];
    const choice = vi.spyOn(proto, 'sleepsAgain').mockImplementation(function (this: unknown, leftNs: number, overBudget: boolean) {
      choices.push({ roomNs: leftNs - margins.short.earlyNs - minSleepNs, sleeps: sets.mock.calls.length, overBudget, atNs: realClock.nowNs() });
      return sleepsAgain.call(this, leftNs, overBudget);
    });
    // plan() arms the second sleep from its own clock read: a VM that takes the CPU away between the
    // choice and that read (100-200 us here, now and then) leaves it less room than the choice saw.
    const planProto = PreciseScheduler.prototype as unknown as { plan(): void };
    const planOriginal = planProto.plan;
    const plans: number[] = [];
    const planning = vi.spyOn(planProto, 'plan').mockImplementation(function (this: unknown) {
      plans.push(realClock.nowNs());
      planOriginal.call(this);
    });
    const rooms: number[] = [];
    const slept: number[] = [];
    try {
      await new Promise<void>((resolve) => s.schedule(realClock.nowNs() + 20_000_000, resolve));
      for (let i = 0; i < 60 && rooms.filter((r) => r >= 100_000).length < 4; i++) {
        const before = sets.mock.calls.length;
        const wakesBefore = wakes.length;
        const choicesBefore = choices.length;
        const due = realClock.nowNs() + 20_000_000;
        const firedNs = await new Promise<number>((resolve) => s.schedule(due, () => resolve(realClock.nowNs())));
        expect(firedNs).toBeGreaterThanOrEqual(due);
        const first = wakes[wakesBefore];
        expect(first, 'the 20 ms sleep woke').toBeDefined();
        // A wake with more than the busy-wait's reach left plans its next sleep without the choice.
        const made = choices.slice(choicesBefore).find((c) => c.sleeps === before + 1);
        // A turn over its spin budget spins whatever the room (the budget bounds CPU, not lateness):
        // no room to sleep again, by the scheduler's rule.
        // The room as the plan() that armed (or not) the second sleep saw it: after the choice, or after
        // the wake itself when the wake planned straight away (onWake).
        const chosenNs = made?.atNs ?? first!.atNs;
        const lostNs = (plans.find((t) => t >= chosenNs) ?? chosenNs) - chosenNs;
        rooms.push(made?.overBudget ? -Infinity : (made?.roomNs ?? due - first!.atNs - first!.shortEarlyNs - minSleepNs) - lostNs);
        slept.push(sets.mock.calls.length - before);
      }
    } finally {
      s.close();
      sets.mockRestore();
      choice.mockRestore();
      planning.mockRestore();
    }
    const summary = rooms.map((r, i) => `${r === -Infinity ? 'over budget' : `${Math.round(r / 1000)}us`}:${slept[i]}`).join(' ');
    // Four wakes early enough came within 60 deadlines (1.2 s), and at least three of them slept again
    // (one in four, now and then, polls the rest: plan() also answers to the poll and linger state of its
    // turn, which this test does not rebuild; a scheduler that spins through them all fails). A wake
    // with no room never sleeps again. Within 100 us of the line either answer is right.
    const early = rooms.flatMap((room, i) => (room >= 100_000 ? [slept[i]] : []));
    expect(early.length, summary).toBe(4);
    expect(early.filter((n) => n === 2).length, summary).toBeGreaterThanOrEqual(3);
    rooms.forEach((room, i) => {
      if (room < -100_000) expect(slept[i], summary).toBe(1);
    });
  });
});
