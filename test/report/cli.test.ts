import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runReport } from '../../src/cli/report.js';
import { main } from '../../src/cli/main.js';
import { ConfigError } from '../../src/errors.js';
import { parseReport } from '../../src/report/index.js';
import { FIXTURES } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-report-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const BENCH = join(FIXTURES, 'bench-report.json');
const CALIBRATE = join(FIXTURES, 'calibrate-report.json');

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function capture(): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  return { out: () => out, err: () => err };
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('parseReport', () => {
  it('tells bench from calibrate by kind', () => {
    expect(parseReport(readFileSync(BENCH, 'utf8'), BENCH).kind).toBe('bench');
    expect(parseReport(readFileSync(CALIBRATE, 'utf8'), CALIBRATE).kind).toBe('calibrate');
  });

  it('names the flag, the file and the problem', () => {
    const notJson = configError(() => parseReport('{nope', 'x.json'));
    expect(notJson.flag).toBe('RESULT');
    expect(notJson.message).toMatch(/^RESULT: invalid value "x\.json"; expected .*not JSON/);
    expect(configError(() => parseReport('[1]', 'x.json')).message).toContain('the top level is not an object');
    expect(configError(() => parseReport('{"kind":"snapshot"}', 'x.json')).message).toContain('kind is "snapshot", not "bench" or "calibrate"');
    // An open-loop run's JSON: refused, saying where its rendering comes from.
    expect(configError(() => parseReport('{"kind":"open-loop"}', 'x.json')).message).toContain('an open-loop run writes its own with bench --rate --html');
    // A cluster run's JSON has no kind: it was refused as "kind is missing", as any file would be.
    expect(configError(() => parseReport('{"rows":[],"nodes":6,"repeat":3}', 'c.json')).message).toContain('a bench --cluster or demo --cluster result');
    expect(configError(() => parseReport('{}', 'x.json')).message).toContain('kind is missing');
    // analyze --json's result was "kind is missing" too: say what it is and what renders it.
    expect(configError(() => parseReport('{"trace":{"version":1},"projections":[]}', 'a.json')).message).toContain(
      'an `analyze --json` result: report renders closed-loop bench and calibrate results; `redis-rtt analyze TRACE --html FILE` writes its page',
    );
  });

  it('points at the first bad field', () => {
    const report = JSON.parse(readFileSync(BENCH, 'utf8'));
    report.results[3].medianMs = 'fast';
    expect(configError(() => parseReport(JSON.stringify(report), 'x.json')).message).toContain('results[3].medianMs is not number');
    delete report.results[3];
    report.results[3] = { ...report.results[4], breakdown: { serverMs: 1 } };
    expect(configError(() => parseReport(JSON.stringify(report), 'x.json')).message).toContain('results[3].breakdown.linkWaitMs is missing');
    const cal = JSON.parse(readFileSync(CALIBRATE, 'utf8'));
    cal.rows[1].addedP50Us = '47';
    expect(configError(() => parseReport(JSON.stringify(cal), 'c.json')).message).toContain('rows[1].addedP50Us is not number or null');
  });
});

describe('a failed configuration read back', () => {
  const report = JSON.parse(readFileSync(BENCH, 'utf8'));
  const failed = report.results.findIndex((r: { error?: string }) => r.error);

  it('has null figures, which parseReport accepts; CSV leaves them empty and the table says FAILED', () => {
    expect(report.results[failed]).toMatchObject({ medianMs: null, latencyUs: null, breakdown: null, histogram: null });
    const io = capture();
    runReport(BENCH, { format: 'csv' });
    const lines = io.out().split('\r\n');
    const header = lines[0]!.split(',');
    const row = lines.find((l) => l.includes('VerificationError'))!.split(',');
    for (const name of ['medianMs', 'minMs', 'maxMs', 'opsPerSec', 'latencyUs.p50', 'latencyUs.max', 'breakdown.linkWaitMs', 'breakdown.otherMs']) {
      expect(row[header.indexOf(name)], name).toBe('');
    }
    runReport(BENCH, {});
    expect(io.out()).toMatch(/mget \[\d\]\s+get\s+1000\s+1000\s+FAILED/);
  });

  it('a result without an error must have its figures; a report from before (zeros when failed) still reads', () => {
    const measured = structuredClone(report);
    measured.results[0].medianMs = null;
    expect(configError(() => parseReport(JSON.stringify(measured), 'x.json')).message).toContain('results[0].medianMs is not number');
    const older = structuredClone(report);
    Object.assign(older.results[failed], { medianMs: 0, minMs: 0, maxMs: 0, opsPerSec: 0, latencyUs: { p50: 0, p90: 0, p99: 0, max: 0 }, histogram: '', breakdown: { linkWaitMs: 0, serverMs: 0, clientCpuMs: 0, otherMs: 0 } });
    expect(parseReport(JSON.stringify(older), 'old.json').kind).toBe('bench');
  });
});

describe('redis-rtt report', () => {
  it('prints the table by default, csv and markdown on request', () => {
    const io = capture();
    runReport(BENCH, {});
    runReport(BENCH, { format: 'csv' });
    runReport(CALIBRATE, { format: 'markdown' });
    runReport(CALIBRATE, {});
    expect(io.out()).toContain('where the time went');
    expect(io.out()).toContain('link,linkRttUs,mode,');
    expect(io.out()).toContain('# redis-rtt calibrate');
    expect(io.out()).toContain('added p50 us');
  });

  it("a calibrate result with a table names its own file in the `use it:` line (it said to run calibrate --json cal.json)", () => {
    const saved = JSON.parse(readFileSync(CALIBRATE, 'utf8')) as { rows: unknown[] };
    const path = file("laptop's cal.json", JSON.stringify({ ...saved, uncalibratedRows: saved.rows, compensationTable: [{ delayUs: 600, compUs: 40 }] }));
    const io = capture();
    runReport(path, {});
    expect(io.out()).toContain(`use it: redis-rtt proxy --compensate '${dir}/laptop'\\''s cal.json' ...\n`);
    expect(io.out()).not.toContain('cal.json, then');
  });

  it('--html writes one self-contained file and prints no table unless --format is given', () => {
    const io = capture();
    const html = join(dir, 'out.html');
    runReport(BENCH, { html, title: 'My run' });
    expect(io.out()).toBe('');
    expect(io.err()).toContain(`wrote ${html}`);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<title>My run</title>');
    expect(page).not.toMatch(/<script|<link |@import|url\(http/i);
    runReport(CALIBRATE, { html, format: 'table' });
    expect(io.out()).toContain('verdict:');
    // A folder not there yet is made, as analyze --html and bench --html make theirs.
    const nested = join(dir, 'new', 'folder', 'out.html');
    runReport(BENCH, { html: nested });
    expect(readFileSync(nested, 'utf8')).toContain('<html');
  });

  it('bad input is a ConfigError naming the flag', () => {
    capture();
    expect(configError(() => runReport(join(dir, 'missing.json'), {})).message).toMatch(/^RESULT: .*no such file/);
    expect(configError(() => runReport(dir, {})).message).toMatch(/^RESULT: .*directory/);
    // A trace (JSON lines) was "not JSON: Unexpected non-whitespace character after JSON at position 263".
    const trace = file('app.trace', '{"type":"header","format":"redis-rtt-trace","version":1}\n{"type":"open","c":1,"t":1}\n');
    expect(configError(() => runReport(trace, {})).message).toContain('expected a bench or calibrate JSON, not a trace: read a trace with `redis-rtt analyze FILE`');
    expect(configError(() => runReport(BENCH, { format: 'xml' })).message).toBe(
      '--format: invalid value "xml"; expected table, csv, markdown',
    );
    // A folder that cannot be made (under a file) is refused; a missing one is made (below).
    expect(configError(() => runReport(BENCH, { html: join(BENCH, 'sub', 'r.html') })).message).toMatch(/^--html: .*a path whose folder can be written \(ENOTDIR\)/);
    // A result that cannot be read leaves no folder behind.
    expect(configError(() => runReport(join(dir, 'missing.json'), { html: join(dir, 'never', 'r.html') })).flag).toBe('RESULT');
    expect(existsSync(join(dir, 'never'))).toBe(false);
    // --title titles the HTML page: without --html it was ignored without a word.
    expect(configError(() => runReport(BENCH, { title: 'My run' })).message).toBe('--title: invalid value "My run"; expected to be given with --html (it titles the page)');
  });

  it('through main: exit 2 with the message on stderr for a wrong kind, 0 for a good file', async () => {
    const io = capture();
    const wrong = file('wrong.json', '{"kind":"stats"}');
    expect(await main(['node', 'redis-rtt', 'report', wrong])).toBe(2);
    expect(io.err()).toContain(`redis-rtt: RESULT: invalid value "${wrong}"`);
    expect(await main(['node', 'redis-rtt', 'report', BENCH, '--format', 'markdown'])).toBe(0);
    expect(io.out()).toContain('# redis-rtt bench');
  });
});
