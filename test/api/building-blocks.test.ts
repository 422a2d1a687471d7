/**
 * docs/api.md's building blocks as the package exports them, given what a JavaScript caller may
 * get wrong: each failed later with a TypeError naming nothing (`new LatencyHistogram(-1)` at its
 * first record, `renderTable({})`), or named a flag the caller had not typed (`parseLinkSpec` said
 * `--links`). Each is a ConfigError naming the option.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  LatencyHistogram,
  parseLinkSpec,
  renderCalibrateTable,
  renderCsv,
  renderHtml,
  renderMarkdown,
  renderTable,
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
