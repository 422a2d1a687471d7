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
    s.delivered(0);
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
    s.delivered(0);
    await ticks(10);
    expect(clock.reads).toBe(0);
  });
});
