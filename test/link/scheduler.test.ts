import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { DelayLine } from '../../src/link/delay-line.js';
import { PreciseScheduler } from '../../src/link/scheduler.js';

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

describe('PreciseScheduler', () => {
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
  });

  it('catchUp fires what is due at once, in order, and nothing early, whether sleeping or polling', async () => {
    const clock = new FakeClock(0);
    const s = new PreciseScheduler({ clock, spinWindowNs: 2_000_000, lingerNs: 0 });
    const fired: string[] = [];
    s.schedule(5_000_000, () => fired.push('a')); // far: a coarse timer sleeps for it
    s.schedule(5_000_001, () => fired.push('b'));
    s.schedule(9_000_000, () => fired.push('c'));
    s.catchUp(4_999_999);
    expect(fired).toEqual([]);
    clock.setNs(5_000_001);
    s.catchUp(5_000_001); // before any poll or timer could run
    expect(fired).toEqual(['a', 'b']);
    expect(s.size).toBe(1);
    // Re-armed for 'c': inside its window the poll takes over, and catchUp still fires first.
    clock.setNs(8_000_000);
    await ticks(3);
    expect(fired).toEqual(['a', 'b']);
    s.schedule(8_500_000, () => fired.push('d'));
    clock.setNs(8_600_000);
    s.catchUp(8_600_000);
    expect(fired).toEqual(['a', 'b', 'd']);
    clock.setNs(9_000_000);
    await ticks(3);
    expect(fired).toEqual(['a', 'b', 'd', 'c']);
    expect(s.size).toBe(0);
  });

  it('with a slack, catchUp leaves a timer to the poll until it is that late', () => {
    const clock = new FakeClock(0);
    const s = new PreciseScheduler({ clock, lingerNs: 0, catchUpSlackNs: 50_000 });
    const fired: number[] = [];
    s.schedule(100_000, () => fired.push(1));
    clock.setNs(149_999);
    s.catchUp(149_999);
    expect(fired).toEqual([]);
    clock.setNs(150_000);
    s.catchUp(150_000);
    expect(fired).toEqual([1]);
    expect(s.size).toBe(0);
  });

  it('a read that catches up first sends what is due on other lines, in order, then its own bytes', () => {
    const clock = new FakeClock(0);
    const s = new PreciseScheduler({ clock, lingerNs: 0 });
    const wire: string[] = [];
    const line = (name: string, delayNs: number): DelayLine =>
      new DelayLine({
        scheduler: s,
        sampleDelayNs: () => delayNs,
        bandwidthBps: () => 0,
        deliver: (chunks) => wire.push(`${name}:${Buffer.concat(chunks).toString()}`),
        onEnd: () => undefined,
      });
    // What the proxy's read callbacks do: catch up, then push the chunk read.
    const read = (l: DelayLine, data: string, atNs: number): void => {
      clock.setNs(atNs);
      s.catchUp(atNs);
      l.push(Buffer.from(data), atNs);
    };
    const slow = line('slow', 100_000);
    const fast = line('fast', 0);
    read(slow, 'x', 0);
    read(slow, 'w', 10_000);
    read(fast, 'y', 99_999);
    expect(wire).toEqual(['fast:y']); // not due yet: stays
    read(fast, 'z', 100_000);
    expect(wire).toEqual(['fast:y', 'slow:x', 'fast:z']);
    read(slow, '1', 110_000); // 'w' is due: out before '1' is queued
    expect(wire.slice(3)).toEqual(['slow:w']);
    expect(slow.queued).toBe(1);
    slow.destroy(); // the poll stops with nothing left to wait for
    expect(s.size).toBe(0);
  });
});
