/**
 * docs/api.md's building blocks as the package exports them, given what a JavaScript caller may
 * get wrong: each was made without a word and failed later with a TypeError naming nothing
 * (`new DelayLine({})` at its first chunk, `new LatencyHistogram(-1)` at its first record), or
 * never (`new PreciseScheduler({ spinUs: -1 })`, a key it does not take), or named a flag the
 * caller had not typed (`parseLinkSpec` said `--links`). Each is a ConfigError naming the option. The start and
 * run functions given options that are no object are in option-key-errors.test.ts (the integration group).
 */
import { describe, expect, it } from 'vitest';
import {
  buildArrivalSchedule,
  ConfigError,
  DelayLine,
  FakeClock,
  jitterSampler,
  LatencyHistogram,
  ManualScheduler,
  OpenLoopDispatcher,
  parseLinkSpec,
  PreciseScheduler,
  renderCalibrateTable,
  renderCsv,
  renderHtml,
  renderMarkdown,
  renderTable,
  StatsCollector,
  type DelayLineOptions,
} from '../../src/index.js';
import { buildBenchReport, buildCalibrateReport } from '../report/fixture-builder.js';

function refused(make: () => unknown): ConfigError {
  try {
    make();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('accepted');
}

/** `{ flag, value }` of the ConfigError `make` throws, and its message starts with the flag. */
function named(make: () => unknown): { flag: string; value: unknown } {
  const e = refused(make);
  expect(e.message.startsWith(`${e.flag}: `), e.message).toBe(true);
  return { flag: e.flag, value: e.value };
}

describe('DelayLine', () => {
  const clock = new FakeClock();
  const good = (): DelayLineOptions => ({
    scheduler: new ManualScheduler(clock),
    sampleDelayNs: () => 1000,
    bandwidthBps: () => 0,
    deliver: () => undefined,
    onEnd: () => undefined,
  });

  it.each<[string, unknown, string, unknown]>([
    ['{}', {}, 'DelayLine.scheduler', undefined],
    ['no options', undefined, 'DelayLine', undefined],
    ['a scheduler without arm()', { ...good(), scheduler: { clock } }, 'DelayLine.scheduler', { clock }],
    ['deliver as a string', { ...good(), deliver: 'x' }, 'DelayLine.deliver', 'x'],
    ['a NaN notBeforeNs', { ...good(), notBeforeNs: NaN }, 'DelayLine.notBeforeNs', NaN],
    ['a key it does not take', { ...good(), delayUs: 5 }, 'DelayLine.delayUs', 5],
    ['a loss of 2', { ...good(), loss: { rate: 2 } }, 'DelayLine.loss.rate', 2],
  ])('%s is refused naming it', (_, options, flag, value) => {
    expect(named(() => new DelayLine(options as DelayLineOptions))).toEqual({ flag, value });
  });

  it('a line of good options still delays and delivers', () => {
    const out: string[] = [];
    const scheduler = new ManualScheduler(clock);
    const line = new DelayLine({ ...good(), scheduler, notBeforeNs: -Infinity, deliver: (chunks) => out.push(...chunks.map(String)) });
    line.push(Buffer.from('a'), clock.nowNs());
    expect(out).toEqual([]);
    scheduler.runUntil(1000);
    expect(out).toEqual(['a']);
  });
});

describe('PreciseScheduler', () => {
  it.each<[string, unknown, string, unknown]>([
    ['spinUs, a key it does not take', { spinUs: -1 }, 'PreciseScheduler.spinUs', -1],
    ['a negative spinNs', { spinNs: -1 }, 'PreciseScheduler.spinNs', -1],
    ['a NaN lingerNs', { lingerNs: NaN }, 'PreciseScheduler.lingerNs', NaN],
    ['maxFiresPerTurn 0', { maxFiresPerTurn: 0 }, 'PreciseScheduler.maxFiresPerTurn', 0],
    ['maxPollShare 2', { maxPollShare: 2 }, 'PreciseScheduler.maxPollShare', 2],
    ['an unknown wake', { wake: 'poll' }, 'PreciseScheduler.wake', 'poll'],
    ['a clock without nowNs()', { clock: {} }, 'PreciseScheduler.clock', {}],
    ['null', null, 'PreciseScheduler', null],
  ])('%s is refused naming it', (_, options, flag, value) => {
    // A fake clock: were one accepted, the real clock's default wake would open the native alarm.
    const faked = options !== null && typeof options === 'object' && !('clock' in options) ? { clock: new FakeClock(), ...options } : options;
    expect(named(() => new PreciseScheduler(faked as never))).toEqual({ flag, value });
  });

  it('takes its documented options', () => {
    const s = new PreciseScheduler({ clock: new FakeClock(), wake: 'timeout', spinNs: 0, maxFiresPerTurn: 8, maxPollShare: 0.05 });
    expect(s.clock.nowNs()).toBe(0);
  });
});

describe('StatsCollector, buildArrivalSchedule and OpenLoopDispatcher', () => {
  // Before: a cap of -1 timed no request, NaN every one; a rate of 0 gave an empty schedule and
  // Infinity a RangeError naming nothing.
  it.each<[string, () => unknown, string, unknown]>([
    ['StatsCollector maxPendingTotal -1', () => new StatsCollector({ maxPendingTotal: -1 }), 'StatsCollector.maxPendingTotal', -1],
    ['StatsCollector maxPendingPerConnection NaN', () => new StatsCollector({ maxPendingPerConnection: NaN }), 'StatsCollector.maxPendingPerConnection', NaN],
    ['StatsCollector maxPending, a key it does not take', () => new StatsCollector({ maxPending: 5 } as never), 'StatsCollector.maxPending', 5],
    ['a rate of 0', () => buildArrivalSchedule({ ratePerSec: 0, durationUs: 1e6, arrival: 'uniform', seed: 1 }), 'buildArrivalSchedule.ratePerSec', 0],
    ['an endless duration', () => buildArrivalSchedule({ ratePerSec: 10, durationUs: Infinity, arrival: 'poisson', seed: 1 }), 'buildArrivalSchedule.durationUs', Infinity],
    ['an unknown arrival', () => buildArrivalSchedule({ ratePerSec: 10, durationUs: 1e6, arrival: 'burst' as never, seed: 1 }), 'buildArrivalSchedule.arrival', 'burst'],
  ])('%s is refused naming it', (_, make, flag, value) => {
    expect(named(make)).toEqual({ flag, value });
  });

  it.each<[string, Record<string, unknown>, string, unknown]>([
    ['no connections', { connections: 0 }, 'OpenLoopDispatcher.connections', 0],
    ['0 in flight', { inFlightPerConnection: 0 }, 'OpenLoopDispatcher.inFlightPerConnection', 0],
    ['a NaN window', { batchWindowNs: NaN }, 'OpenLoopDispatcher.batchWindowNs', NaN],
    ['no send', { send: undefined }, 'OpenLoopDispatcher.send', undefined],
    ['maxBatches, a key it does not take', { maxBatches: 2 }, 'OpenLoopDispatcher.maxBatches', 2],
  ])('OpenLoopDispatcher with %s is refused naming it', (_, bad, flag, value) => {
    const good = {
      ...{ clock: new FakeClock(), startNs: 0, durationNs: 1e9, connections: 1, inFlightPerConnection: Infinity },
      ...{ batchWindowNs: 0, maxBatch: 1, send: () => undefined },
    };
    expect(named(() => new OpenLoopDispatcher({ ...good, ...bad } as never))).toEqual({ flag, value });
    expect(new OpenLoopDispatcher(good).ledger).toBeDefined();
  });

  it('take good options as before', () => {
    expect(new StatsCollector({ maxCommandNames: 0, maxPendingTotal: 1 }).connectionsInfo()).toEqual([]);
    expect(Array.from(buildArrivalSchedule({ ratePerSec: 4, durationUs: 1e6, arrival: 'uniform', seed: 2 ** 60 }))).toEqual([0, 25e7, 5e8, 75e7]);
  });
});

describe('jitterSampler', () => {
  // Before: an unknown dist or a NaN delay made a sampler of 0 us, and a uniform that is no
  // function threw a TypeError naming nothing.
  it.each<[string, () => unknown, string, unknown]>([
    ['an unknown dist', () => jitterSampler('flat' as never, 100, 10, Math.random), 'jitterSampler(dist)', 'flat'],
    ['a NaN delay', () => jitterSampler('uniform', NaN, 10, Math.random), 'jitterSampler(delayUs)', NaN],
    ['a negative jitter', () => jitterSampler('normal', 100, -5, Math.random), 'jitterSampler(jitterUs)', -5],
    ['a uniform that is no function', () => jitterSampler('uniform', 100, 10, 0.5 as never), 'jitterSampler(uniform)', 0.5],
  ])('%s is refused naming it', (_, make, flag, value) => {
    expect(named(make)).toEqual({ flag, value });
  });

  it('samples around the delay as before', () => {
    const sample = jitterSampler('uniform', 100, 10, () => 0.75);
    expect(sample()).toBe(105);
  });
});

describe('FakeClock and ManualScheduler', () => {
  // Before: NaN or '5' made every later reading NaN or a string, and a clock without setNs failed
  // at the first timer.
  it.each<[string, () => unknown, string, unknown]>([
    ['FakeClock(NaN)', () => new FakeClock(NaN), 'FakeClock(ns)', NaN],
    ["advanceNs('5')", () => new FakeClock().advanceNs('5' as never), 'FakeClock.advanceNs', '5'],
    ['setNs(Infinity)', () => new FakeClock().setNs(Infinity), 'FakeClock.setNs', Infinity],
    ['ManualScheduler(a clock without setNs)', () => new ManualScheduler({ nowNs: () => 0 } as never), 'ManualScheduler(clock)', undefined],
  ])('%s is refused naming it', (_, make, flag, value) => {
    expect(named(make)).toMatchObject({ flag, ...(value === undefined ? {} : { value }) });
  });

  it('a fake clock moves as told, and not back', () => {
    const clock = new FakeClock(5);
    clock.advanceNs(10);
    clock.setNs(20);
    expect(clock.nowNs()).toBe(20);
    expect(() => clock.advanceNs(-1)).toThrow(RangeError);
  });
});

describe('LatencyHistogram', () => {
  it('new LatencyHistogram(-1) is refused; with no argument it is an empty histogram', () => {
    expect(named(() => new LatencyHistogram(-1 as never))).toEqual({ flag: 'LatencyHistogram', value: -1 });
    const h = new LatencyHistogram();
    h.record(150);
    expect(LatencyHistogram.decode(h.encode()).summary()).toMatchObject({ count: 1, p50: 150 });
  });

  it('decode of what encode() did not write names decode', () => {
    expect(named(() => LatencyHistogram.decode('x'))).toEqual({ flag: 'LatencyHistogram.decode', value: 'x' });
    expect(named(() => LatencyHistogram.decode(5 as never))).toEqual({ flag: 'LatencyHistogram.decode', value: 5 });
  });
});

describe('the renderers', () => {
  const bench = buildBenchReport();
  const calibrate = buildCalibrateReport();

  it.each<[string, () => unknown, string, unknown]>([
    ['renderTable({})', () => renderTable({} as never), 'report.kind', undefined],
    ['renderTable(a calibrate report)', () => renderTable(calibrate as never), 'report.kind', 'calibrate'],
    ['renderTable without environment', () => renderTable({ ...bench, environment: undefined } as never), 'report.environment', undefined],
    ['renderCsv(null)', () => renderCsv(null as never), 'report', null],
    ['renderMarkdown with a result not an object', () => renderMarkdown({ ...bench, results: [5] } as never), 'report.results[0]', 5],
    ['renderHtml with rows not an array', () => renderHtml({ ...calibrate, rows: 'x' } as never), 'report.rows', 'x'],
    ['renderCalibrateTable(a bench report)', () => renderCalibrateTable(bench as never), 'report.kind', 'bench'],
    // A key they do not take rendered without the setting.
    ['renderTable with colour', () => renderTable(bench, { colour: true } as never), 'options.colour', true],
    ['renderHtml with a title that is no string', () => renderHtml(bench, { title: 5 } as never), 'options.title', 5],
    ['renderCalibrateTable with color "yes"', () => renderCalibrateTable(calibrate, { color: 'yes' } as never), 'options.color', 'yes'],
  ])('%s is refused naming the field', (_, render, flag, value) => {
    expect(named(render)).toEqual({ flag, value });
  });

  it('render what the run functions resolve to, as before', () => {
    expect(renderTable(bench)).toContain('cross-az');
    expect(renderCalibrateTable(calibrate)).toContain('rtt p50 us');
  });
});

describe('parseLinkSpec', () => {
  it('names itself, not a flag, when the library calls it; the CLI passes its flag', () => {
    expect(named(() => parseLinkSpec('rtt=fast'))).toEqual({ flag: 'parseLinkSpec rtt=', value: 'fast' });
    expect(named(() => parseLinkSpec(5 as never))).toEqual({ flag: 'parseLinkSpec', value: 5 });
    expect(named(() => parseLinkSpec('nowhere', '--links'))).toEqual({ flag: '--links', value: 'nowhere' });
  });
});
