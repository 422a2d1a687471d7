import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { ConfigError } from '../../src/errors.js';
import { DelayLine } from '../../src/link/delay-line.js';
import { LinkState } from '../../src/link/link-state.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { parseRttSeries, RttSeriesCursor } from '../../src/link/rtt-series.js';
import { parseLinkSchedule } from '../../src/link/schedule.js';
import { parseRttWave, waveValue } from '../../src/link/wave.js';
import type { PartitionRequest } from '../../src/link/partition.js';
import { LinkTimeline } from '../../src/proxy/link-timeline.js';
import { parseDurationOrOffUs, parsePositiveDurationUs } from '../../src/units.js';

const MS = 1_000_000;
const S = 1_000_000_000;

describe('--rtt-wave', () => {
  it('parses SHAPE:PERIOD:AMPLITUDE and refuses a zero or negative period, naming it', () => {
    expect(parseRttWave('sine:60s:20ms')).toEqual({ shape: 'sine', periodUs: 60_000_000, amplitudeUs: 20_000 });
    expect(() => parseRttWave('sine:0s:20ms')).toThrow(/--rtt-wave period: .*above 0/);
    expect(() => parseRttWave('sine:-5s:20ms')).toThrow(/--rtt-wave period/);
    // 1ns is above 0, but a whole number of microseconds is 0: the message says what the bound is.
    expect(() => parseRttWave('sine:1ns:20ms')).toThrow(
      '--rtt-wave period: invalid value "1ns"; expected a period above 0, at least 1us (durations are whole microseconds: less rounds to 0), like 60s',
    );
    expect(() => parseRttWave('wobble:5s:1ms')).toThrow(/--rtt-wave: .*sine \| square \| triangle \| sawtooth/);
  });

  it('shapes start at the base and span [-1, 1]', () => {
    expect([0, 0.25, 0.5, 0.75].map((p) => Math.round(waveValue('sine', p) * 1000) / 1000)).toEqual([0, 1, 0, -1]);
    expect([0, 0.49, 0.5, 0.99].map((p) => waveValue('square', p))).toEqual([1, 1, -1, -1]);
    expect([0, 0.25, 0.5, 0.75].map((p) => waveValue('triangle', p))).toEqual([0, 1, 0, -1]);
    expect([0, 0.5, 0.75].map((p) => waveValue('sawtooth', p))).toEqual([-1, 0, 0.5]);
  });

  it('moves each direction by half the deviation, on the clock, floored at 0', () => {
    const clock = new FakeClock();
    const link = new LinkState({ rttUs: 10_000 }, { clock });
    link.reshape((s) => s.setWave(parseRttWave('square:1s:30ms'), 0));
    // High half: RTT 10 + 30 ms; low half: 10 - 30 ms, floored at 0 per direction.
    expect(link.sampleNs('up')).toBe(20 * MS);
    expect(link.sampleNs('down')).toBe(20 * MS);
    clock.setNs(0.5 * S);
    expect(link.sampleNs('up')).toBe(0);
    expect(link.delaysNowUs()).toEqual({ upUs: 0, downUs: 0 });
    clock.setNs(1.1 * S);
    expect(link.delaysNowUs()).toEqual({ upUs: 20_000, downUs: 20_000 });
  });

  it('never lets a later chunk pass an earlier one when the delay falls', () => {
    const clock = new FakeClock();
    const scheduler = new ManualScheduler(clock);
    const link = new LinkState({ rttUs: 0 }, { clock });
    // Sawtooth: the RTT falls from +100 ms to -100 ms (floored at 0) at each period's start.
    link.reshape((s) => s.setWave(parseRttWave('sawtooth:1s:100ms'), 0));
    const out: { data: string; atNs: number }[] = [];
    const line = new DelayLine({
      scheduler,
      sampleDelayNs: () => link.sampleNs('up'),
      bandwidthBps: () => 0,
      deliver: (chunks, _e, atNs) => out.push({ data: Buffer.concat(chunks).toString(), atNs }),
      onEnd: () => {},
    });
    scheduler.runUntil(0.999 * S); // 49.9 ms one way
    line.push(Buffer.from('a'), clock.nowNs());
    scheduler.runUntil(1.001 * S); // just after the drop: 0 ms one way
    line.push(Buffer.from('b'), clock.nowNs());
    scheduler.runUntil(3 * S);
    // 'b' was due at once; it leaves with 'a', not before it.
    expect(out).toEqual([{ data: 'ab', atNs: 0.999 * S + 49.9 * MS }]);
  });
});

describe('--rtt-series', () => {
  it('reads seconds,rtt_ms with a header, and ping -D output as is (stamps from the first reply)', () => {
    expect(parseRttSeries('seconds,rtt_ms\n0,1.2\n1,1.5\n# a comment\n3,2\n')).toEqual({
      atUs: [0, 1_000_000, 3_000_000],
      rttUs: [1200, 1500, 2000],
      periodUs: 5_000_000,
    });
    const ping = [
      'PING redis.example.com (10.0.0.7) 56(84) bytes of data.',
      '[1764651600.100000] 64 bytes from 10.0.0.7: icmp_seq=1 ttl=57 time=85.1 ms',
      '[1764651601.100000] 64 bytes from 10.0.0.7: icmp_seq=2 ttl=57 time=88.0 ms',
      '[1764651602.600000] no answer yet for icmp_seq=3',
      '[1764651603.100000] 64 bytes from 10.0.0.7: icmp_seq=4 ttl=57 time=90.4 ms',
      '',
      '--- redis.example.com ping statistics ---',
      '4 packets transmitted, 3 received, 25% packet loss, time 3004ms',
    ].join('\n');
    const s = parseRttSeries(ping);
    expect(s.atUs).toEqual([0, 1_000_000, 3_000_000]);
    expect(s.rttUs).toEqual([85_100, 88_000, 90_400]);
  });

  it('refuses a series with no rows, a bad row and rows out of order, naming the flag and line', () => {
    expect(() => parseRttSeries('seconds,rtt_ms\n')).toThrow(/--rtt-series: .*at least one row/);
    expect(() => parseRttSeries('PING x (1.2.3.4) 56(84) bytes of data.\n[1.0] no answer yet for icmp_seq=1\n')).toThrow(/at least one row/);
    expect(() => parseRttSeries('0,1\n1,x\n')).toThrow(/--rtt-series line 2/);
    // ping without -D: each reply was taken for a header line, and the error said only 'no row'.
    const unstamped = 'PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data.\n64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=12.3 ms\n64 bytes from 10.0.0.1: icmp_seq=2 ttl=64 time=12.5 ms\n';
    expect(() => parseRttSeries(unstamped)).toThrow(
      `--rtt-series: invalid value "2 ping repl(ies), none with a time stamp"; expected ping -D's output: run ping with -D, which stamps each reply with its time`,
    );
    expect(() => parseRttSeries('0,1\n2,1\n1,1\n')).toThrow(/--rtt-series line 3: .*time order/);
    // At most an hour, as every delay; a negative RTT is a bad row, not a header.
    expect(() => parseRttSeries('0,1\n1,99999999\n')).toThrow(/--rtt-series line 2: invalid value "1,99999999"; expected an RTT of at most 1 hour/);
    // The refused row as written, as a line that is no row is shown (it printed the number read, unquoted: 5 for "5.0").
    expect(() => parseRttSeries('0,1.50\n10,5\n5.0, 3\n')).toThrow('--rtt-series line 3: invalid value "5.0, 3"; expected rows in time order');
    expect(() => parseRttSeries('0,1\n1,5000000.0\n')).toThrow('--rtt-series line 2: invalid value "1,5000000.0"; expected an RTT of at most 1 hour (3600000 ms)');
    expect(parseRttSeries('0,3600000\n').rttUs).toEqual([3_600_000_000]);
    expect(() => parseRttSeries('0,-5\n1,2\n')).toThrow(/--rtt-series line 1/);
  });

  it('holds each value until the next, loops at the end, or keeps the last with once', () => {
    const series = parseRttSeries('0,10\n1,20\n2,30\n');
    const loop = new RttSeriesCursor(series, false);
    expect([0, 0.5, 1, 2.9, 3, 4.5].map((t) => loop.rttUsAt(t * S))).toEqual([10_000, 10_000, 20_000, 30_000, 10_000, 20_000]);
    const once = new RttSeriesCursor(series, true);
    expect([0, 2, 3, 100].map((t) => once.rttUsAt(t * S))).toEqual([10_000, 30_000, 30_000, 30_000]);
  });
});

describe('--link-schedule', () => {
  it('parses a list, and a loop whose last step holds as long as the gap before it', () => {
    expect(parseLinkSchedule([{ at: '0s', link: { rttUs: 1000 } }, { at: '30s', link: { rttUs: 85_000 }, ramp: '5s' }])).toEqual({
      steps: [
        { atUs: 0, link: { rttUs: 1000 } },
        { atUs: 30_000_000, link: { rttUs: 85_000 }, rampUs: 5_000_000 },
      ],
    });
    const loop = parseLinkSchedule({ loop: true, steps: [{ at: '0s', link: { rttUs: 1 } }, { at: '10s', partition: '2s', then: 'reset' }] });
    expect(loop.periodUs).toBe(20_000_000);
    expect(loop.steps[1]!.partition).toEqual({ durationUs: 2_000_000, then: 'reset' });
  });

  it('refuses unsorted steps, unknown fields, a ramp past the next step and a zero period, naming the field', () => {
    expect(() => parseLinkSchedule([{ at: '10s', link: {} }, { at: '5s', link: {} }])).toThrow(/--link-schedule steps\[1\]\.at: .*time order/);
    expect(() => parseLinkSchedule([{ at: '0s', link: { rtt: 5 } }])).toThrow(/--link-schedule steps\[0\]\.link\.rtt/);
    expect(() => parseLinkSchedule([{ at: '0s', latency: 5 }])).toThrow(/--link-schedule steps\[0\]\.latency/);
    expect(() => parseLinkSchedule([{ at: '0s', link: {}, ramp: '20s' }, { at: '10s', link: {} }])).toThrow(/steps\[0\]\.ramp: .*ends by steps\[1\]\.at/);
    expect(() => parseLinkSchedule({ loop: true, period: '0s', steps: [{ at: '0s', link: {} }] })).toThrow(/--link-schedule period: .*above 0/);
    expect(() => parseLinkSchedule([{ at: '0s', partition: '0s' }])).toThrow(/steps\[0\]\.partition: .*above 0/);
    // 1ns is above 0 as written but 0 in whole microseconds: each refusal says the real floor, not only "above 0".
    const floor = 'above 0, at least 1us (durations are whole microseconds: less rounds to 0)';
    expect(() => parseLinkSchedule([{ at: '0s', partition: '1ns' }])).toThrow(`--link-schedule steps[0].partition: invalid value "1ns"; expected a duration ${floor}`);
    expect(() => parseLinkSchedule([{ at: '0s', link: {}, ramp: '1ns' }])).toThrow(`--link-schedule steps[0].ramp: invalid value "1ns"; expected a duration ${floor}`);
    expect(() => parseLinkSchedule({ loop: true, period: '0.4us', steps: [{ at: '0s', link: {} }] })).toThrow(`--link-schedule period: invalid value "0.4us"; expected a duration ${floor}`);
    expect(() => parsePositiveDurationUs('1ns', '--duration', 'a duration', '20s')).toThrow(`--duration: invalid value "1ns"; expected a duration ${floor}, like 20s`);
    expect(parsePositiveDurationUs('1us', '--duration', 'a duration', '20s')).toBe(1);
    // Where 0 means never (--idle-timeout), 1ns turned the timeout off without a word.
    expect(() => parseDurationOrOffUs('1ns', '--idle-timeout', 'never')).toThrow(`--idle-timeout: invalid value "1ns"; expected 0 (never), or a duration ${floor}`);
    expect(parseDurationOrOffUs('0', '--idle-timeout', 'never')).toBe(0);
    expect(parseDurationOrOffUs('0.0s', '--idle-timeout', 'never')).toBe(0);
    expect(() => parseLinkSchedule([])).toThrow(/at least one step/);
    // A period on a schedule that runs once did nothing, without a word.
    expect(() => parseLinkSchedule({ loop: false, period: '5s', steps: [{ at: '0s', link: {} }] })).toThrow(
      '--link-schedule period: invalid value "5s"; expected period only with "loop": true',
    );
  });

  it('names values as the file writes them, lists only the keys a step\'s link takes, and says why a loop has no period', () => {
    expect(() => parseLinkSchedule([{ at: '10s', link: {} }, { at: '5s', link: {} }])).toThrow('steps[1].at: invalid value "5s"');
    expect(() => parseLinkSchedule([{ at: '0s', link: {}, ramp: '20s' }, { at: '10s', link: {} }])).toThrow('steps[0].ramp: invalid value "20s"');
    let message = '';
    try {
      parseLinkSchedule([{ at: '0s', link: { partition: '1s' } }]);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^--link-schedule steps\[0\]\.link\.partition: .*a link key: rttUs, .*, mssBytes, preset \(a partition goes in the step\)$/);
    expect(message).not.toContain('then');
    expect(() => parseLinkSchedule({ loop: true, steps: [{ at: '0s', link: {} }] })).toThrow(
      '--link-schedule period: missing; expected a period after the last step and its ramp, above 0 us (the default, the last step held as long as the gap before it, gives 0 us)',
    );
    expect(() => parseLinkSchedule({ loop: true, period: '2s', steps: [{ at: '1s', link: {}, ramp: '3s' }] })).toThrow(
      '--link-schedule period: invalid value "2s"; expected a period after the last step and its ramp, above 1000000 us and at least 4000000 us',
    );
  });
});

describe('LinkTimeline on a fake clock', () => {
  /** `stepCostNs`: how long each step's link change holds the proxy (the fake clock moves by it). */
  function setup(schedule: unknown, stepCostNs = 0) {
    const clock = new FakeClock();
    const scheduler = new ManualScheduler(clock);
    const link = new LinkState({ rttUs: 1000 }, { clock });
    const partitions: { atNs: number; request: PartitionRequest }[] = [];
    const logged: string[] = [];
    const appliedAtNs: number[] = [];
    // What the proxy answers a partition step: nothing, or a ConfigError while one runs.
    let checkPartition = (): void => undefined;
    const refusePartitions = (message: string): void => {
      checkPartition = () => {
        throw new ConfigError('partition', '1s', message);
      };
    };
    const timeline = new LinkTimeline(
      { schedule: parseLinkSchedule(schedule) },
      scheduler,
      link,
      (u) => {
        appliedAtNs.push(clock.nowNs());
        link.update(u);
        clock.setNs(clock.nowNs() + stepCostNs);
      },
      { check: () => checkPartition(), start: (request) => partitions.push({ atNs: clock.nowNs(), request }) },
      (line) => logged.push(line),
    );
    timeline.start();
    return { clock, scheduler, link, timeline, partitions, logged, refusePartitions, appliedAtNs };
  }

  it('applies each step at its time, ramps the delays, and /stats shows the step', () => {
    const { scheduler, link, timeline } = setup([
      { at: '1s', link: { rttUs: 11_000 }, ramp: '1s' },
      { at: '5s', link: { rttUs: 2000, jitterUs: 100 } },
    ]);
    expect(timeline.report()!.schedule).toEqual({ step: -1, steps: 2, loop: 0, nextAtMs: 1000, skipped: 0 });
    scheduler.runUntil(1.5 * S);
    // Half-way up the ramp from 1 ms to 11 ms.
    expect(link.delaysNowUs()).toEqual({ upUs: 3000, downUs: 3000 });
    expect(timeline.report()!.schedule).toEqual({ step: 0, steps: 2, loop: 0, nextAtMs: 5000, skipped: 0 });
    scheduler.runUntil(2.5 * S);
    expect(link.delaysNowUs()).toEqual({ upUs: 5500, downUs: 5500 });
    expect(link.shape.constant).toBe(true);
    scheduler.runUntil(5 * S);
    expect(link.settings).toMatchObject({ upUs: 1000, downUs: 1000, jitterUs: 100 });
    expect(timeline.report()!.schedule).toEqual({ step: 1, steps: 2, loop: 0, skipped: 0 });
  });

  it('new delays given mid-ramp (PUT /link: the proxy ends the ramp) hold at once, not at its end', () => {
    const { scheduler, link, timeline } = setup([{ at: '1s', link: { rttUs: 11_000 }, ramp: '6s' }]);
    scheduler.runUntil(1.5 * S);
    expect(link.delaysNowUs().upUs).toBeLessThan(5500);
    link.update({ rttUs: 100_000 });
    timeline.endRamp();
    expect(link.delaysNowUs()).toEqual({ upUs: 50_000, downUs: 50_000 });
    expect(link.shape.constant).toBe(true);
    scheduler.runUntil(8 * S);
    expect(link.delaysNowUs()).toEqual({ upUs: 50_000, downUs: 50_000 });
  });

  it('loops, and starts a partition at a partition step', () => {
    const { scheduler, timeline, partitions } = setup({
      loop: true,
      steps: [
        { at: '0s', link: { rttUs: 1000 } },
        { at: '2s', partition: '1s' },
      ],
    });
    scheduler.runUntil(9 * S);
    // Period 4 s: partitions at 2 s and 6 s; at 9 s the third pass has begun (step 0 at 8 s).
    expect(partitions).toEqual([
      { atNs: 2 * S, request: { durationUs: 1_000_000, then: 'heal', startNs: 2 * S } },
      { atNs: 6 * S, request: { durationUs: 1_000_000, then: 'heal', startNs: 6 * S } },
    ]);
    expect(timeline.report()!.schedule).toEqual({ step: 0, steps: 2, loop: 2, nextAtMs: 10_000, skipped: 0 });
  });

  // Each step re-armed the next a period later, still in the past: every catch-up (a scheduler turn,
  // here runUntil(now)) ran more steps than the one before (1, 4, 18, 81 ...), and the proxy answered nothing else.
  it('a loop a period or more behind goes on from the pass that holds now, logged once, not replaying each pass', () => {
    const { clock, scheduler, timeline, logged, appliedAtNs } = setup({ loop: true, period: '100us', steps: [{ at: '0s', link: { rttUs: 2000 } }] }, 450_000);
    const perTurn: number[] = [];
    for (let turn = 0; turn < 6; turn++) {
      const before = appliedAtNs.length;
      scheduler.runUntil(clock.nowNs());
      perTurn.push(appliedAtNs.length - before);
    }
    expect(perTurn).toEqual([1, 1, 1, 1, 1, 1]);
    expect(clock.nowNs()).toBe(6 * 450_000);
    // The pass that holds now: pass 26's step came at 2.6 ms, the next (pass 27) is due at the clock's 2.7 ms.
    expect(timeline.report()!.schedule).toMatchObject({ step: 0, loop: 26, nextAtMs: 3 });
    expect(logged).toEqual([expect.stringMatching(/^--link-schedule fell 3 pass\(es\) behind its loop .*\(logged once\)$/)]);
  });

  // Timed from when its timer fired, a late partition ended late: the schedule's next one, refused while it ran, was skipped.
  it('starts a partition step that fires late at the step\'s own time, so it ends when the schedule says', () => {
    const { scheduler, partitions } = setup(
      [
        { at: '0s', link: { rttUs: 2000 } },
        { at: '100ms', partition: '150ms' },
      ],
      300 * MS,
    );
    scheduler.runUntil(1 * S);
    expect(partitions).toEqual([{ atNs: 300 * MS, request: { durationUs: 150_000, then: 'heal', startNs: 100 * MS } }]);
  });

  // A PUT /link since the start can leave a step that does not fit: its ConfigError, thrown from the step's timer, ended the proxy.
  it('skips a step the link refuses when its time comes, logging it, and goes on with the next', () => {
    const { scheduler, link, timeline, partitions, logged } = setup([
      { at: '1s', link: { lossBurst: 1.2, rttUs: 5000 }, partition: '1s' },
      { at: '3s', link: { rttUs: 7000 } },
    ]);
    link.update({ loss: 0.6, lossBurst: 2 });
    scheduler.runUntil(1 * S);
    expect(logged).toEqual([expect.stringMatching(/^--link-schedule steps\[0\] skipped: lossBurst: invalid value 1\.2; expected a mean burst of at least 1\.5/)]);
    // Refused whole, as PUT /link refuses: neither its delays nor its partition.
    expect(link.settings).toMatchObject({ upUs: 500, lossBurst: 2 });
    expect(partitions).toEqual([]);
    // /stats says the step's time came but nothing of it applied, and why.
    const reason = expect.stringMatching(/^lossBurst: invalid value 1\.2; expected a mean burst of at least 1\.5/);
    expect(timeline.report()!.schedule).toEqual({ step: 0, steps: 2, loop: 0, nextAtMs: 3000, skipped: 1, lastSkipped: { step: 0, loop: 0, reason } });
    scheduler.runUntil(3 * S);
    expect(link.settings.upUs).toBe(3500);
    expect(timeline.report()!.schedule).toEqual({ step: 1, steps: 2, loop: 0, skipped: 1, lastSkipped: { step: 0, loop: 0, reason } });
  });

  // Its delays were applied and the partition only logged ('--link-schedule: partition: ...'), skipped: 0.
  it('skips whole a partition step whose partition cannot start (a PUT /link partition still runs): its link unchanged', () => {
    const { scheduler, link, timeline, partitions, logged, refusePartitions } = setup([{ at: '1s', link: { rttUs: 5000 }, partition: '1s' }]);
    refusePartitions('no partition while one runs (it heals in 2000 ms)');
    scheduler.runUntil(1 * S);
    expect(link.settings.upUs).toBe(500);
    expect(partitions).toEqual([]);
    const reason = 'partition: invalid value "1s"; expected no partition while one runs (it heals in 2000 ms)';
    expect(logged).toEqual([`--link-schedule steps[0] skipped: ${reason}`]);
    expect(timeline.report()!.schedule).toEqual({ step: 0, steps: 1, loop: 0, skipped: 1, lastSkipped: { step: 0, loop: 0, reason } });
  });
});
