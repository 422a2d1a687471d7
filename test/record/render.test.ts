import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { analyzeTrace } from '../../src/record/analyze.js';
import { renderHtml } from '../../src/record/render-html.js';
import { renderJson, renderText } from '../../src/record/render.js';
import { encodeEnd, encodeEvent, encodeHeader } from '../../src/record/trace-format.js';
import type { TapEvent } from '../../src/stats/types.js';
import { LOCAL_LINK, Session, traceOf } from './synthetic.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/record');
const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-render-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function session(): TapEvent[] {
  const events: TapEvent[] = [];
  const s = new Session(events, 1, 1000);
  s.rt(['HELLO']);
  s.think(100);
  for (let i = 0; i < 200; i++) {
    s.rt([{ name: 'GET', key: `k${i}` }]);
    s.think(20);
  }
  s.rt(Array.from({ length: 100 }, () => ({ name: 'SET', argc: 3 })));
  for (const name of ['SET', 'INCR', 'HSET', 'EXPIRE']) s.rt([name]);
  s.close();
  return events;
}

/** Compares with fixtures/record/NAME; UPDATE_GOLDEN=1 rewrites it. */
function golden(name: string, actual: string): void {
  const path = join(FIXTURES, name);
  if (process.env.UPDATE_GOLDEN) {
    mkdirSync(FIXTURES, { recursive: true });
    writeFileSync(path, actual);
  }
  expect(existsSync(path), `${path} is missing: run with UPDATE_GOLDEN=1 to write it`).toBe(true);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

describe('analysis reports', () => {
  const analysis = analyzeTrace(traceOf(session()), { rttsUs: [200, 1200, 85_000] });

  it('text report matches the golden file', () => {
    golden('n-plus-one.txt', renderText(analysis, { file: 'app.trace' }));
  });

  it('JSON has the documented top-level shape', () => {
    const doc = JSON.parse(renderJson(analysis, 'app.trace')) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['trace', 'totals', 'connections', 'nodes', 'redirects', 'chainedConnections', 'recorded', 'projections', 'setup', 'opportunities', 'topCommands']);
    expect(doc.trace).toMatchObject({ file: 'app.trace', version: 1, keys: 'none', recordedRttUs: 0, complete: true });
    expect(doc.projections).toEqual(analysis.projections);
    for (const p of doc.projections as Array<Record<string, unknown>>) expect(Object.keys(p)).toEqual(['rttUs', 'wallMs', 'roundTrips', 'waitMs', 'setupMs', 'setupSharePct']);
  });

  it('HTML is one self-contained page: inline CSS and SVG, no scripts, nothing fetched', () => {
    // No golden file: the chart comes from src/svg, which has its own golden tests.
    const html = renderHtml(analysis, 'app<1>.trace');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<style>');
    expect(html).toContain('<svg');
    expect(html).toContain('data-chart="analyze-projections"');
    expect(html).not.toMatch(/<script|<link|src=|@import/i);
    expect(html.replace('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:\/\//);
    expect(html).toContain('app&lt;1&gt;.trace');
    // "the tables" of the text report, the requests per round trip too: 205 of one request, one of 100.
    expect(html).toContain('<p>1 connection, 305 commands in <b>206 round trips</b> (206 flights, max depth 100)');
    expect(html).toContain('<h2>Requests per round trip</h2>');
    expect(html).toContain('<tr><td class="l">1</td><td>205</td><td>99.5%</td></tr>');
    expect(html).toContain('<tr><td class="l">64-127</td><td>1</td><td>0.5%</td></tr>');
  });
});

describe('analyze --loss in the HTML page', () => {
  it('shows the loss columns and says what they hold, as the text report does', () => {
    // The page's projected walls include the loss's mean: without the columns it did not say so.
    const lossy = analyzeTrace(traceOf(session()), { rttsUs: [1200], loss: 0.01 });
    const loss = lossy.projections[0]!.loss!;
    const cells = [...renderHtml(lossy).matchAll(/<t[hd][^>]*>([^<]*)<\/t[hd]>/g)].map((m) => m[1]);
    for (const heading of ['loss mean/rt', 'rt p99', 'rt p99.9', 'rt resent']) expect(cells).toContain(heading);
    expect(cells).toContain(`${loss.slowSharePct}%`);
    expect(cells).toContain(`${loss.p99Ms.toFixed(1)} ms`);
    expect(renderHtml(lossy)).toContain('rt p99 / p99.9 are one round trip&#39;s tail, its RTT included');
    expect(renderText(lossy)).toContain("rt p99 / p99.9 are one round trip's tail, its RTT included");
    const plain = analyzeTrace(traceOf(session()), { rttsUs: [1200] });
    expect(renderHtml(plain)).not.toContain('loss mean/rt');
  });
});

describe('a loop over few keys (--record-keys hashed)', () => {
  it('the HTML page says how many distinct keys, as the text report does', () => {
    // 6 GETs of 2 keys: the text said "[2 distinct keys]" after the advice, the page left it out.
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 1000);
    for (let i = 0; i < 6; i++) s.think(20).rt([{ name: 'GET', key: i % 2 === 0 ? 'aaaaaaaaaaaaaaaa' : 'bbbbbbbbbbbbbbbb' }]);
    s.close();
    const a = analyzeTrace(traceOf(events, LOCAL_LINK, 'hashed'), { rttsUs: [1200] });
    expect(a.opportunities[0]).toMatchObject({ command: 'GET', count: 6, distinctKeys: 2 });
    expect(renderText(a)).toContain('if independent [2 distinct keys]');
    expect(renderHtml(a)).toContain('if independent [2 distinct keys]</td>');
  });
});

describe('an empty trace', () => {
  it('says waiting and think time are sums over the connections, and the HTML gives the pushes as the text does', () => {
    // Three connections idle side by side: 177 ms of "client think time" in a 98 ms wall read as an error.
    const events: TapEvent[] = [];
    for (const conn of [1, 2]) {
      const s = new Session(events, conn, 1000);
      s.rt(['GET']);
      s.think(5000).rt(['GET']);
    }
    events.push({ type: 'push', conn: 2, atUs: 7000, bytes: 30, kind: 'message' });
    const two = analyzeTrace(traceOf(events), { rttsUs: [1000] });
    expect(two.totals.thinkMs).toBeGreaterThan(two.totals.wallMs);
    expect(renderText(two)).toContain('client think time 10.00 ms (each summed over the 2 connections)\n');
    expect(renderHtml(two)).toContain('max depth 1), 1 push; wall 6.00 ms: waiting on Redis 0.20 ms (Redis itself 0.20 ms), client think time 10.00 ms (each summed over the 2 connections).');
    expect(renderText(analyzeTrace(traceOf(session())))).toMatch(/client think time [\d.]+ ms\n/);
  });

  it('analyses and renders without a single event', () => {
    const a = analyzeTrace(traceOf([]), { rttsUs: [20_000] });
    expect(a.totals).toMatchObject({ connections: 0, commands: 0, roundTrips: 0, wallMs: 0 });
    expect(a.projections).toEqual([{ rttUs: 20_000, wallMs: 0, roundTrips: 0, waitMs: 0, setupMs: 0, setupSharePct: 0 }]);
    expect(renderText(a)).toContain('none found');
    expect(renderHtml(a)).toContain('<svg');
  });
});

describe('redis-rtt analyze (CLI)', () => {
  const file = join(dir, 'app.trace');
  const lines = [encodeHeader(new Date('2025-01-01T00:00:00Z'), 'none', LOCAL_LINK, 'test'), ...session().map((e) => encodeEvent(e, 0, 'none'))];
  writeFileSync(file, `${lines.join('\n')}\n${encodeEnd({ atUs: 1e6, events: lines.length - 1, dropped: 0, bytes: 0 })}\n`);

  async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
    const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
    try {
      const code = await main(['node', 'redis-rtt', 'analyze', ...args]);
      return { code, out, err };
    } finally {
      o.mockRestore();
      e.mockRestore();
    }
  }

  it('prints the tables, or JSON with --json -, and writes --html', async () => {
    const text = await run(file);
    expect(text.code).toBe(0);
    expect(text.out).toContain('opportunities');
    const html = join(dir, 'out.html');
    const json = await run(file, '--json', '-', '--rtt', '1.2ms, 20ms', '--html', html, '--min-run', '4');
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.out) as { projections: Array<{ rttUs: number }>; opportunities: Array<{ command: string }> };
    expect(doc.projections.map((p) => p.rttUs)).toEqual([1200, 20_000]);
    expect(doc.opportunities.map((o) => o.command)).toEqual(['GET', 'SET, INCR, HSET, EXPIRE']);
    expect(readFileSync(html, 'utf8')).toContain('<svg');
    expect(json.err).toBe(`redis-rtt: wrote ${html}\n`);
    // --json FILE: the JSON goes to the file, the tables still to stdout.
    const jsonFile = join(dir, 'out.json');
    const both = await run(file, '--json', jsonFile);
    expect(both.code).toBe(0);
    expect(both.out).toContain('opportunities');
    expect((JSON.parse(readFileSync(jsonFile, 'utf8')) as { projections: unknown[] }).projections.length).toBe(3);
  });

  it('exits 2 naming the flag or the line on bad input', async () => {
    expect(await run(file, '--rtt', 'fast')).toMatchObject({ code: 2, err: expect.stringContaining('--rtt: invalid value "fast"') });
    expect(await run(file, '--min-run', '1')).toMatchObject({ code: 2, err: expect.stringContaining('--min-run') });
    // Every bad --min-run is told the range accepted: "x" was told "from 1", which 1 then was not.
    for (const bad of ['1', 'x', '0']) {
      expect(await run(file, '--min-run', bad)).toMatchObject({ code: 2, err: expect.stringContaining('a whole number from 2 to 1000000') });
    }
    expect(await run(join(dir, 'missing.trace'))).toMatchObject({ code: 2, err: expect.stringContaining('cannot read') });
    const bad = join(dir, 'bad.trace');
    writeFileSync(bad, `${lines[0]}\n{"type":"cmd"}\n`);
    expect(await run(bad)).toMatchObject({ code: 2, err: expect.stringContaining('bad.trace:2: "t" must be a number') });
  });

  it('--chain-connections: a round trip on one connection waits for the one that finished before it on another', async () => {
    // One application handing off between its connections (await a.quit(); await b.quit(), a BLPOP
    // connection, a subscriber): the projection kept the connections independent after their opens, so an
    // ioredis mix at 10 ms projected 15-20% low. Two connections open together, then alternate, 4 round trips.
    const events: TapEvent[] = [];
    const one = new Session(events, 1, 1000);
    const two = new Session(events, 2, 1010);
    for (const [s, next] of [[one, two], [two, one], [one, two], [two, one]] as const) {
      s.rt(['GET']);
      next.nowUs = s.nowUs + 10;
    }
    two.nowUs = one.nowUs;
    one.close();
    two.close();
    const handoff = join(dir, 'handoff.trace');
    const body = [encodeHeader(new Date('2025-01-01T00:00:00Z'), 'none', LOCAL_LINK, 'test'), ...events.map((e) => encodeEvent(e, 0, 'none'))];
    writeFileSync(handoff, `${body.join('\n')}\n${encodeEnd({ atUs: 1e6, events: events.length, dropped: 0, bytes: 0 })}\n`);
    type Doc = { chainedConnections: boolean; chainedAlternative?: unknown; recorded: { wallMs: number }; projections: Array<{ wallMs: number }> };
    const project = async (...flags: string[]): Promise<Doc> => JSON.parse((await run(handoff, '--rtt', '10ms', '--json', '-', ...flags)).out) as Doc;
    const [apart, chained, off] = [await project(), await project('--chain-connections'), await project('--no-chain-connections')];
    // Apart: each connection pays its TCP connect and its own 2 round trips, side by side (+30 ms).
    expect(apart.chainedConnections).toBe(false);
    expect(apart.projections[0]!.wallMs).toBeCloseTo(apart.recorded.wallMs + 30, 6);
    // Chained: the connects overlap, then the 4 round trips follow one another (+10 + 4 x 10 ms).
    expect(chained.chainedConnections).toBe(true);
    expect(chained.projections[0]!.wallMs).toBeCloseTo(chained.recorded.wallMs + 50, 6);
    // Unless told either way, analyze says what chaining would project at the largest RTT when that is 10% or more higher.
    const wallMs = chained.projections[0]!.wallMs;
    const differencePct = Math.round((1000 * (wallMs - apart.projections[0]!.wallMs)) / apart.projections[0]!.wallMs) / 10;
    expect(apart.chainedAlternative).toEqual({ rttUs: 10_000, wallMs, differencePct });
    expect(differencePct).toBeGreaterThan(10);
    expect(off).toEqual({ ...apart, chainedAlternative: undefined });
    expect(chained.chainedAlternative).toBeUndefined();
    expect((await run(handoff, '--rtt', '10ms')).out).toContain(
      `  note: with --chain-connections (one application using its connections in turn: a blocking or subscriber connection it waits on) RTT 10ms projects to ${wallMs.toFixed(2)} ms`,
    );
    const text = await run(handoff, '--rtt', '10ms', '--chain-connections', '--html', join(dir, 'handoff.html'));
    expect(text.out).toContain('  connections chained: each round trip also waits for whatever finished before it on any connection (--chain-connections');
    expect(readFileSync(join(dir, 'handoff.html'), 'utf8')).toContain('Connections chained: each round trip also waits');
    expect((await run(handoff, '--rtt', '10ms')).out).not.toContain('connections chained');
  });

  it('a trace that fails to read makes no folder for --html or --json; one that reads makes them', async () => {
    // The outputs were checked by making their folders, before the read: a typo in TRACE left out/ behind.
    const html = join(dir, 'made', 'deep', 'x.html');
    const json = join(dir, 'made-json', 'x.json');
    expect(await run(join(dir, 'missing.trace'), '--html', html, '--json', json)).toMatchObject({ code: 2, err: expect.stringContaining('cannot read') });
    expect([existsSync(join(dir, 'made')), existsSync(join(dir, 'made-json'))]).toEqual([false, false]);
    // A folder that cannot be made is still refused before the read, naming the flag.
    const under = join(file, 'x.html');
    expect(await run(join(dir, 'missing.trace'), '--html', under)).toMatchObject({ code: 2, err: expect.stringContaining('--html: invalid value') });
    // A folder that passes the check but takes no file (/proc, writable for root): exit 2 naming the flag,
    // not exit 1 with a bare "Error: ENOENT".
    expect(await run(file, '--html', '/proc/x.html')).toMatchObject({ code: 2, err: expect.stringContaining('--html: invalid value "/proc/x.html"') });
    expect(await run(file, '--json', '/proc/x.json')).toMatchObject({ code: 2, err: expect.stringContaining('--json: invalid value "/proc/x.json"') });
    // Refused as a whole: --json's folder is not made when --html's cannot be.
    expect(await run(file, '--json', json, '--html', under)).toMatchObject({ code: 2, err: expect.stringContaining('(ENOTDIR)') });
    expect(existsSync(join(dir, 'made-json'))).toBe(false);
    expect(await run(file, '--html', html, '--json', json)).toMatchObject({ code: 0 });
    expect([readFileSync(html, 'utf8'), readFileSync(json, 'utf8')]).toEqual([expect.stringContaining('<svg'), expect.stringContaining('"projections"')]);
  });
});
