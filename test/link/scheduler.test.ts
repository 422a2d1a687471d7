import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
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
});
