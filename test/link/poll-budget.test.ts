import { describe, expect, it } from 'vitest';
import { PollBudget } from '../../src/link/poll-budget.js';
import { newTimer } from '../../src/link/timer-heap.js';
import type { Timer } from '../../src/stage/types.js';

const MS = 1_000_000;

/** A quarter of the time (round numbers to check; the scheduler's default is a tenth), more timers than one connection's two. */
const setup = () => new PollBudget(0.25, 2);
const timers = (n: number): Timer[] => Array.from({ length: n }, () => newTimer(() => undefined));

// The budget is a pure function of the times it is given (the scheduler passes its clock's now and
// its cumulative poll time), so its windows are tested on exact times, not on a real clock.
describe('PollBudget', () => {
  it('is over when more than one connection polls past its share of the last 10-20 ms', () => {
    const b = setup();
    for (const t of timers(3)) b.fired(t);
    expect(b.over(5 * MS, 4 * MS)).toBe(true); // 80% of 5 ms spent polling
  });

  it('is never over for one connection (two timers), whatever the share', () => {
    const b = setup();
    for (const t of timers(2)) b.fired(t);
    expect(b.over(5 * MS, 5 * MS)).toBe(false);
  });

  it('is not over at or under its share, with any number of timers', () => {
    const b = setup();
    for (const t of timers(50)) b.fired(t);
    expect(b.over(4 * MS, 1 * MS)).toBe(false); // exactly 25%
    expect(b.over(8 * MS, 1.5 * MS)).toBe(false);
  });

  it('counts a timer once per window, however often it fires there', () => {
    const b = setup();
    const [a, c, d] = timers(3) as [Timer, Timer, Timer];
    for (let i = 0; i < 5; i++) b.fired(a);
    b.fired(c);
    expect(b.over(5 * MS, 4 * MS)).toBe(false); // two distinct timers
    b.fired(d);
    expect(b.over(5 * MS, 4 * MS)).toBe(true);
  });

  it('remembers the window before: a busy one keeps it over one window more, a quiet one ends it', () => {
    const b = setup();
    for (const t of timers(3)) b.fired(t);
    expect(b.over(5 * MS, 4 * MS)).toBe(true);
    // 12 ms: a new window opens, nothing fired in it yet; the busy one before still counts.
    expect(b.over(12 * MS, 4 * MS)).toBe(true); // 4 ms of 12 polled
    // 23 ms: the window before (12-23 ms) saw no timer: not over, though it polled 6 ms of 11.
    expect(b.over(23 * MS, 10 * MS)).toBe(false);
  });

  it('takes the share over the window before and this one, not this one alone', () => {
    const b = setup();
    for (const t of timers(3)) b.fired(t);
    expect(b.over(10 * MS, 1 * MS)).toBe(false); // rolls at 10 ms: 1 ms of 10 polled before
    for (const t of timers(3)) b.fired(t);
    // 2 ms of polling since 10 ms is 100% of this window so far, but (1 + 2) / 12 = 25% of both.
    expect(b.over(12 * MS, 3 * MS)).toBe(false);
    expect(b.over(12 * MS, 3.1 * MS)).toBe(true);
  });
});
