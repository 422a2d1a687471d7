import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { PollAccount } from '../../src/link/poll-account.js';

describe('PollAccount', () => {
  it('keeps where the last run of poll turns ended, with the loop account then, for the self-report', () => {
    const clock = new FakeClock(1_000);
    const account = new PollAccount(clock);
    expect(account.lastRunEnd.endNs).toBe(-1);
    account.polling();
    account.spun(1_000, 31_000);
    account.turnEnded(1_000, 40_000, true); // asks for another turn: the run goes on
    expect(account.lastRunEnd.endNs).toBe(-1);
    expect(account.chainedPollStartNs).toBe(1_000);
    const idleBeforeMs = performance.nodeTiming.idleTime;
    account.turnEnded(40_000, 90_000, false);
    const run = account.lastRunEnd;
    expect(run.endNs).toBe(90_000);
    expect(account.lastTurnEndNs).toBe(90_000);
    // 89 us of polling, 30 of them a busy-wait
    expect(run.pollNs).toBe(59_000);
    expect(run.spunNs).toBe(30_000);
    expect(run.idleMs).toBeGreaterThanOrEqual(idleBeforeMs);
    expect(account.chainedPollStartNs).toBe(-1);
    // The next run's end rewrites it; the totals are cumulative.
    clock.advanceNs(1_000_000);
    account.polling();
    account.turnEnded(1_001_000, 1_011_000, false);
    expect(account.lastRunEnd).toMatchObject({ endNs: 1_011_000, pollNs: 69_000, spunNs: 30_000 });
  });
});
