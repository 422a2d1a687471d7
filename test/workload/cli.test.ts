import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { BenchReport } from '../../src/results/types.js';
import { captureCliOutput } from '../helpers/cli-output.js';

const io = captureCliOutput();

const bench = (...args: string[]): Promise<number> => main(['node', 'redis-rtt', 'bench', ...args]);

describe('redis-rtt bench flags', () => {
  it.each([
    [['--batch', '8,0'], '--batch'],
    [['-n', 'many'], '-n'],
    [['--repeat', '0'], '--repeat'],
    [['--modes', 'seq,turbo'], '--modes'],
    [['--links', 'direct,moon'], '--links'],
    [['--links', 'rtt=fast'], '--links rtt='],
    [['--max-seconds', '-3'], '--max-seconds'],
    [['--redis', 'nowhere'], '--redis'],
    [['--compensate', '/nonexistent/cal.json'], '--compensate'],
    // No proxy in the path: compensation changed nothing while the command line said it did.
    [['--links', 'direct', '--compensate', 'auto'], '--compensate: invalid value "auto"; expected a link with a proxy'],
    [['--links', 'direct', '--compensate', '20us'], '--compensate: invalid value "20us"; expected a link with a proxy'],
    // Ignored before: incr has no values, and --cluster runs no schedule (--redis: a bad one fails fast if it ran).
    [['--size', '512'], '--size: invalid value "512"; expected to be given with --workload set or get'],
    [['--cluster', '--redis', '127.0.0.1:1', '--slo', '5ms'], '--slo: invalid value "5ms"; expected no such flag with --cluster'],
    [['--cluster', '--redis', '127.0.0.1:1', '--batch-window', '1ms'], '--batch-window: invalid value "1ms"; expected no such flag with --cluster'],
    [['--cluster', '--redis', '127.0.0.1:1', '--duration', '2s'], '--duration: invalid value "2s"; expected no such flag with --cluster'],
  ])('rejects %j with exit status 2 naming the flag', async (args, flag) => {
    expect(await bench(...args)).toBe(2);
    expect(io.err).toContain(`redis-rtt: ${flag}`);
  });

  // One reader (parseList) takes every comma list apart: a stray comma is refused, not dropped.
  it.each([
    [['bench', '--batch', '1,,2'], '--batch'],
    [['bench', '--batch', '8,'], '--batch'],
    [['bench', '--links', 'direct,,local'], '--links'],
    [['bench', '--modes', ',seq'], '--modes'],
    [['bench', '--cluster', '--links', 'same-az,'], '--links'],
    [['bench', '--clients', '1,,2'], '--clients'],
    [['bench', '--clients', '1', '--modes', 'seq,,auto'], '--modes'],
    [['bench', '--rate', '1k,,2k'], '--rate'],
    [['bench', '--rate', '1k', '--batch-window', '0,,1ms'], '--batch-window'],
    [['calibrate', '--rtts', '0,,1ms'], '--rtts'],
    [['analyze', 'missing.trace', '--rtt', '1ms,,2ms'], '--rtt'],
    [['proxy', '--sentinel', '127.0.0.1:26379,,127.0.0.1:26380', '--sentinel-master', 'm'], '--sentinel'],
  ])('%j: an empty item in a comma list exits 2 naming the flag', async (args, flag) => {
    expect(await main(['node', 'redis-rtt', ...args])).toBe(2);
    expect(io.err).toContain(`redis-rtt: ${flag}: invalid value`);
    expect(io.err).toContain('with no empty item');
  });

  it('runs, prints the estimate and the table, and writes json, csv, markdown and .hgrm files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-cli-'));
    try {
      const code = await bench('--links', 'direct', '--workload', 'incr', '--modes', 'seq,pipeline', '--batch', '10', '-n', '50', '--repeat', '2',
        '--json', join(dir, 'r.json'), '--csv', join(dir, 'r.csv'), '--markdown', join(dir, 'r.md'), '--hgrm-dir', join(dir, 'h'));
      expect(code, io.err).toBe(0);
      expect(io.err).toMatch(/configurations, \d+ samples; estimated/);
      // without --format the table goes to stderr, leaving stdout empty for a pipe
      expect(io.err).toMatch(/pipeline/);
      expect(io.out).toBe('');
      const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as BenchReport;
      expect(report.results.map((r) => `${r.mode}:${r.batch}`)).toEqual(['seq:1', 'pipeline:10']);
      expect(readFileSync(join(dir, 'r.csv'), 'utf8').split('\n').length).toBeGreaterThan(2);
      expect(readFileSync(join(dir, 'r.md'), 'utf8')).toContain('|');
      const hgrms = readdirSync(join(dir, 'h'));
      expect(hgrms).toHaveLength(2);
      expect(readFileSync(join(dir, 'h', hgrms[0] as string), 'utf8')).toMatch(/Value\s+Percentile\s+TotalCount/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a lossy link (--links cross-az/loss=2%): JSON and the table carry p99 and p99.9 right after the median', async () => {
    expect(await bench('--links', 'cross-az/loss=2%', '--modes', 'seq', '-n', '100', '--repeat', '1', '--seed', '24', '--format', 'json'), io.err).toBe(0);
    const report = JSON.parse(io.out) as BenchReport;
    const [lossy] = report.results;
    expect(lossy).toMatchObject({ link: 'cross-az/loss=2%', lossy: true, roundTrips: 100 });
    expect(lossy!.latencyUs!.p999).toBeGreaterThanOrEqual(lossy!.latencyUs!.p99);
    // About 4 of 100 GETs lose a segment one way or the other and pay an RTO: 201.2 ms on a 1.2 ms RTT.
    expect(lossy!.latencyUs!.max).toBeGreaterThan(200_000);
    expect(io.err).toMatch(/^link\s+mode\s+batch\s+N\s+median ms\s+p99 us\s+p99\.9 us/m);
  }, 30_000);

  it("lists the JSON's results in the table's order (nearest link first, then MODES order), not the order given", async () => {
    expect(await bench('--links', 'same-az,direct', '--modes', 'pipeline,seq', '--batch', '5', '-n', '10', '--repeat', '1', '--driver-warmup', '0', '--format', 'json'), io.err).toBe(0);
    const report = JSON.parse(io.out) as BenchReport;
    const order = ['direct seq', 'direct pipeline', 'same-az seq', 'same-az pipeline'];
    expect(report.results.map((r) => `${r.link} ${r.mode}`)).toEqual(order);
    // The table on stderr, read top to bottom: its link column names a block's first row only.
    const lines = io.err.split('\n');
    const modeAt = lines.find((l) => l.startsWith('link '))!.indexOf('mode');
    let link = '';
    const rows = lines.filter((l) => /^(seq|pipeline) /.test(l.slice(modeAt))).map((l) => {
      if (/^[^\s(]/.test(l)) link = l.split(' ')[0]!;
      return `${link} ${l.slice(modeAt).split(' ')[0]}`;
    });
    expect(rows).toEqual(order);
  });

  it('puts the table on stdout with --format table, as report prints it from the saved JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-table-'));
    try {
      const json = join(dir, 'r.json');
      expect(await bench('--links', 'direct', '--modes', 'seq', '-n', '5', '--repeat', '1', '--format', 'table', '--json', json)).toBe(0);
      const table = io.out;
      expect(table).toMatch(/^link\s+mode\s+batch/m);
      expect(table).toMatch(/direct/);
      expect(await main(['node', 'redis-rtt', 'report', json, '--format', 'table'])).toBe(0);
      // Byte for byte: the run's stdout ended in a blank line that report's did not.
      expect(io.out.slice(table.length)).toBe(table);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints JSON on stdout with --format json, over the default links', async () => {
    expect(await bench('--modes', 'seq', '-n', '5', '--repeat', '1', '--format', 'json')).toBe(0);
    const report = JSON.parse(io.out) as BenchReport;
    expect(report.kind).toBe('bench');
    expect(io.err).toMatch(/cross-az/); // the table still shows, on stderr
    expect(report.results.map((r) => r.link)).toEqual(['direct', 'local', 'same-az', 'cross-az']);
    expect(report.results.map((r) => r.roundTrips)).toEqual([null, 5, 5, 5]);
  });

  it('--compensate FILE: a saved calibrate table is applied at each link\'s own delay (shown in the notes)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-cli-'));
    try {
      const file = join(dir, 'cal.json');
      writeFileSync(file, JSON.stringify({ kind: 'calibrate', compensationTable: [{ delayUs: 100, compUs: 30 }, { delayUs: 600, compUs: 130 }] }));
      const code = await bench('--links', 'same-az,cross-az', '--modes', 'seq', '-n', '5', '--repeat', '1', '--compensate', file, '--json', join(dir, 'r.json'));
      expect(code, io.err).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as BenchReport & { notes?: string[] };
      const notes = JSON.stringify(report);
      expect(notes).toMatch(/same-az: the proxy takes 30 us off each one-way delay/);
      expect(notes).toMatch(/cross-az: the proxy takes 130 us off each one-way delay/);
      // Each proxied link states its own delivery lateness (issue 16's self-report).
      expect(notes).toMatch(/same-az: proxy's own p99 lateness \d+ us \(p50 \d+, max \d+, \d+ deliveries\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--compensate DURATION: the note says the value was the one given (it said "its own hop", which auto measures)', async () => {
    expect(await bench('--links', 'local', '--modes', 'seq', '-n', '5', '--repeat', '1', '--warmup', '0', '--driver-warmup', '0', '--compensate', '20us', '--format', 'json'), io.err).toBe(0);
    expect((JSON.parse(io.out) as { notes: string[] }).notes).toContain('local: the proxy takes 20 us off each one-way delay (as given)');
  });
});
