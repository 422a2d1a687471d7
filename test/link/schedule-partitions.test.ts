import { describe, expect, it } from 'vitest';
import { parseLinkSchedule } from '../../src/link/schedule.js';

// One partition at a time: a schedule whose partitions overlap is refused at start, not skipped with a log line when
// the second one's time comes (the proxy had started, and the run was not the one the file describes).
describe('--link-schedule partitions', () => {
  it('refuses a partition step that starts before the one ahead of it has ended, naming it', () => {
    expect(() => parseLinkSchedule([{ at: '0s', partition: '3s' }, { at: '1s', partition: '1s' }])).toThrow(
      `--link-schedule steps[1].partition: invalid value "1s"; expected a partition that starts after steps[0]'s has ended (at 3000000 us; one partition at a time)`,
    );
    // A link step between them does not hide the overlap; back to back is refused (its end is timed from a late step).
    expect(() => parseLinkSchedule([{ at: '0s', partition: '3s' }, { at: '1s', link: { rttUs: 1 } }, { at: '3s', partition: '1s' }])).toThrow(
      /steps\[2\]\.partition: .*after steps\[0\]'s has ended/,
    );
  });

  it('refuses, in a loop, a last partition that runs into the first one on the next pass', () => {
    const steps = [
      { at: '1s', partition: '1s' },
      { at: '5s', partition: '4s' },
    ];
    expect(() => parseLinkSchedule({ loop: true, period: '8s', steps })).toThrow(
      /--link-schedule steps\[0\]\.partition: invalid value "1s"; expected a partition that starts on the next pass after steps\[1\]'s has ended \(at 9000000 us/,
    );
    expect(() => parseLinkSchedule({ loop: true, period: '2s', steps: [{ at: '0s', partition: '2s' }] })).toThrow(/steps\[0\]\.partition: .*next pass/);
  });

  it('takes partitions that are apart, in a list and across a loop', () => {
    const list = parseLinkSchedule([{ at: '0s', partition: '3s' }, { at: '3001ms', partition: '1s' }]);
    expect(list.steps.map((s) => s.partition?.durationUs)).toEqual([3_000_000, 1_000_000]);
    const loop = parseLinkSchedule({ loop: true, period: '9s', steps: [{ at: '1s', partition: '1s' }, { at: '5s', partition: '4s' }] });
    expect(loop.periodUs).toBe(9_000_000);
  });
});
