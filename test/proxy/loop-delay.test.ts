import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { LoopDelay } from '../../src/proxy/loop-delay.js';
import type { WakeListener } from '../../src/stage/types.js';

const MS = 1_000_000;

/** A scheduler as the monitor sees it: a clock, and wakes the test makes. */
function wakeSource() {
  const clock = new FakeClock();
  const listeners: WakeListener[] = [];
  let stopped = 0;
  return {
    clock,
    watchWakes(listener: WakeListener) {
      listeners.push(listener);
      return () => {
        listeners.splice(listeners.indexOf(listener), 1);
        stopped++;
      };
    },
    /** `ms` of time pass (Node's timers with it), then the scheduler wakes `lateUs` after the time it asked. */
    wakeAfter(ms: number, lateUs: number) {
      this.pass(ms);
      for (const l of listeners) l(lateUs * 1000, clock.nowNs());
    },
    pass(ms: number) {
      clock.advanceNs(ms * MS);
      vi.advanceTimersByTime(ms);
    },
    get watching() {
      return listeners.length;
    },
    get stopped() {
      return stopped;
    },
  };
}

describe('LoopDelay: the event-loop delay without a wake of its own', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("takes one sample a period from the scheduler's wakes, and its own timer never runs while they come", () => {
    const source = wakeSource();
    const loop = new LoopDelay(source, 50);
    loop.enable();
    // One client 20 ms away: the scheduler wakes every 20 ms, 30 us late.
    for (let i = 0; i < 50; i++) source.wakeAfter(20, 30);
    const s = loop.histogram.summary();
    // 1 s of wakes 20 ms apart, a sample at the first wake 50 ms or more after the last: 60 ms apart.
    expect(s.count).toBe(16);
    // Every sample is a wake's lateness: a run of the own timer would have added one of 0.
    expect(s.p50).toBe(30);
    expect(s.max).toBe(30);
  });

  it('samples with its own timer, every two periods, when the scheduler does not wake, and records how late it ran', () => {
    const source = wakeSource();
    const loop = new LoopDelay(source, 50);
    loop.enable();
    for (let i = 0; i < 10; i++) source.pass(100);
    expect(loop.histogram.summary().count).toBe(10);
    expect(loop.histogram.summary().max).toBe(0);
    // The loop is held 7 ms past the timer's due time: the clock moves on, Node's timers do not yet.
    source.clock.advanceNs(107 * MS);
    vi.advanceTimersByTime(100);
    expect(loop.histogram.summary().count).toBe(11);
    // The sum is exact where HDR's buckets keep three significant digits.
    expect(loop.histogram.summary().sum).toBe(7000);
  });

  it('samples once a second while the loop sleeps through its periods, and every two again once it is awake', () => {
    const source = wakeSource();
    let idleMs = 0;
    const loop = new LoopDelay(source, 50, () => idleMs);
    loop.enable();
    // Asleep all the time: after the first run of the own timer, one a second.
    const asleep = (ms: number) => {
      idleMs += ms;
      source.pass(ms);
    };
    asleep(100);
    expect(loop.histogram.summary().count).toBe(1);
    for (let i = 0; i < 20; i++) asleep(100);
    expect(loop.histogram.summary().count).toBe(3);
    // Awake (traffic with no timed delivery): back to every 100 ms after the next run.
    for (let i = 0; i < 20; i++) source.pass(100);
    expect(loop.histogram.summary().count).toBe(3 + 1 + 10);
  });

  it('counts a long block that holds a wake as that wake is late', () => {
    const source = wakeSource();
    const loop = new LoopDelay(source, 50);
    loop.enable();
    source.wakeAfter(60, 250_000);
    expect(loop.histogram.summary().sum).toBe(250_000);
  });

  it("samples every period on its own timer where the scheduler tells of no wakes", () => {
    const clock = new FakeClock();
    const loop = new LoopDelay({ clock }, 50);
    loop.enable();
    for (let i = 0; i < 20; i++) {
      clock.advanceNs(50 * MS);
      vi.advanceTimersByTime(50);
    }
    expect(loop.histogram.summary().count).toBe(20);
  });

  it('stops watching and sampling when disabled, and starts again when enabled', () => {
    const source = wakeSource();
    const loop = new LoopDelay(source, 50);
    loop.enable();
    expect(source.watching).toBe(1);
    source.wakeAfter(60, 10);
    loop.disable();
    expect(loop.enabled).toBe(false);
    expect(source.watching).toBe(0);
    expect(source.stopped).toBe(1);
    source.wakeAfter(60, 10);
    source.pass(1000);
    expect(loop.histogram.summary().count).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    loop.enable();
    source.wakeAfter(60, 10);
    expect(loop.histogram.summary().count).toBe(2);
    loop.disable();
  });
});
