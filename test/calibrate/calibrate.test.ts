import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCalibrate, tableFrom } from '../../src/calibrate/run.js';
import { verdict } from '../../src/calibrate/rows.js';
import { proxiedBlocks } from '../../src/calibrate/measure.js';
import { main } from '../../src/cli/main.js';
import { parseCompensateFlag } from '../../src/cli/compensate-flag.js';
import { startPingSession } from '../../src/calibrate/pinger.js';
import { renderCalibrateTable } from '../../src/report/calibrate-table.js';
import { rawCommands, startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import type { CalibrateReport, CalibrateRow } from '../../src/results/types.js';
import { BIN, startCliProxy, runCli } from '../hardening/helpers/cli-proxy.js';
import { closedPort } from '../proxy/helpers.js';

describe('the long-lived pinger', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('answers block after block on one connection, and reports a refused target as an error', async () => {
    const pinger = startPingSession();
    try {
      const target = { kind: 'tcp' as const, host: redis.host!, port: redis.port! };
      const connections = async (): Promise<number> => {
        const [info] = await rawCommands(target, [['INFO', 'stats']]);
        return Number(/total_connections_received:(\d+)/.exec(info!.text ?? '')![1]);
      };
      const before = await connections();
      const a = await pinger.ping(target, 50, 5);
      const b = await pinger.ping(target, 30);
      expect(a).toHaveLength(50);
      expect(b).toHaveLength(30);
      expect([...a, ...b].every((us) => us > 0 && us < 1_000_000)).toBe(true);
      // Both blocks on one connection (the +1 after it is the INFO's own).
      expect((await connections()) - before).toBe(2);
      const port = await closedPort();
      await expect(pinger.ping({ kind: 'tcp', host: '127.0.0.1', port }, 5)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      pinger.close();
    }
  });
});

describe('calibrate', () => {
  // Wall-clock figures on a shared 2-core machine: a run that lands in someone else's burst is tried again (a
  // retry, not a looser bound; a real regression fails every try).
  it('auto: measures without compensation, derives a table, and the rows it reports were measured with it', { timeout: 120_000, retry: 2 }, async () => {
    const report = await runCalibrate({ rttsUs: [0, 2000], samples: 200, rounds: 2 });
    expect(report.rows.map((r) => r.label)).toEqual(['direct', 'proxy, no delay', '2ms']);
    expect(report.uncalibratedRows?.map((r) => r.label)).toEqual(['proxy, no delay', '2ms']);
    const table = report.compensationTable!;
    expect(table).toHaveLength(1);
    expect(table[0]!.delayUs).toBe(1000);
    expect(table[0]!.compUs).toBeGreaterThanOrEqual(0);
    expect(table[0]!.compUs).toBeLessThan(1000);
    const raw = report.uncalibratedRows!.find((r) => r.configuredRttUs === 2000)!;
    const final = report.rows.find((r) => r.configuredRttUs === 2000)!;
    // Without compensation the proxy can only add to the 2 ms (a hop, wake-ups): never much less.
    expect(raw.addedP50Us!).toBeGreaterThan(1800);
    // A delay line that dropped the delay would add ~0.1 ms, one that doubled it ~4 ms: +-25% catches both.
    expect(final.addedP50Us!).toBeGreaterThan(1500);
    expect(final.addedP50Us!).toBeLessThan(2500);
    for (const r of report.rows.slice(1)) {
      expect(r.rounds).toBe(2);
      expect(r.addedMinUs!).toBeLessThanOrEqual(r.addedP50Us!);
      expect(r.addedMaxUs!).toBeGreaterThanOrEqual(r.addedP50Us!);
    }
    expect(report.verdict).toMatch(/^proxy hop with no delay adds \d+ us at p50 \((ok|over), target under 60 us\); with the calibrated table: 2ms: (ok|OFF)/);
    expect(report.verdict).toMatch(/Without the table: 2ms/);
    const text = renderCalibrateTable(report);
    expect(text).toMatch(/compensation table \(one-way delay -> us taken off\): 1ms -> \d+ us/);
    expect(text).toMatch(/first pass, no compensation: added p50 2ms \d+ us/);
  });

  it('a given compensation: one pass, no table; an RTT given twice is measured once', { timeout: 60_000 }, async () => {
    const report = await runCalibrate({ rttsUs: [1000, 1000], samples: 100, rounds: 1, compensationUs: { up: 0, down: 0 } });
    expect(report.rows.map((r) => r.label)).toEqual(['direct', '1ms']);
    expect(report.compensationUs).toBe(0);
    expect(report.uncalibratedRows).toBeUndefined();
    expect(report.compensationTable).toBeUndefined();
    expect(report.rows[1]!.addedP50Us!).toBeGreaterThan(900);
  });

  it('against a given upstream over a unix socket: no private Redis, its version read with INFO', { timeout: 60_000 }, async () => {
    const unix = await startPrivateRedis({ transport: 'unix' });
    try {
      const report = await runCalibrate({ upstream: unix.address, rttsUs: [1000], samples: 60, rounds: 1, compensationUs: { up: 0, down: 0 }, idleCpu: false });
      expect(report.environment.redis).toBe(unix.version);
      expect(report.rows.map((r) => r.label)).toEqual(['direct', '1ms']);
      expect(report.rows[1]!.addedP50Us!).toBeGreaterThan(900);
      expect(report.idleCpuPct).toBeNull(); // idleCpu: false: not measured, not 0
    } finally {
      await unix.stop();
    }
  });

  it('with the signal aborted after a row: the rows that finished, marked interrupted; no idle CPU second', { timeout: 60_000 }, async () => {
    const stop = new AbortController();
    const report = await runCalibrate({
      rttsUs: [0, 1000, 2000], samples: 100, rounds: 2, signal: stop.signal,
      progress: (line) => { if (line.includes('added p50')) stop.abort(); },
    });
    expect(report.interrupted).toBe(true);
    // The first pass was cut short: no table from it, and its finished rows as they were measured.
    expect(report.rows.map((r) => r.label)).toEqual(['direct', 'proxy, no delay']);
    expect(report.rows[0]!.samples).toBe(100); // the direct blocks of the row that finished, no more
    expect(report.compensationTable).toBeUndefined();
    expect(report.idleCpuPct).toBeNull();
    // A library caller's own abort: no signal to name (the CLI's say SIGINT or SIGTERM).
    expect(report.verdict).toMatch(/^interrupted: only the rows that finished are reported\. proxy hop/);
    expect(renderCalibrateTable(report)).toContain('idle proxy CPU: not measured (interrupted).');
  });

  it('with the signal aborted in the second pass: the table saved holds only the points measured with it', { timeout: 60_000 }, async () => {
    const stop = new AbortController();
    let second = false;
    const report = await runCalibrate({
      rttsUs: [0, 1000, 2000], samples: 100, rounds: 2, idleCpu: false, signal: stop.signal,
      progress: (line) => {
        if (line.includes('measuring again with it')) second = true;
        else if (second && line.includes('added p50')) stop.abort();
      },
    });
    expect(report.interrupted).toBe(true);
    expect(report.uncalibratedRows!.map((r) => r.configuredRttUs)).toEqual([0, 1000, 2000]);
    // The 1 ms row was measured with the table; the 2 ms one never was.
    expect(report.rows.map((r) => r.label)).toEqual(['direct', 'proxy, no delay', '1ms']);
    expect(report.compensationTable!.map((p) => p.delayUs)).toEqual([500]);
    expect(report.uncheckedCompensation!.map((p) => p.delayUs)).toEqual([1000]);
    const text = renderCalibrateTable(report);
    expect(text).toMatch(/compensation table \(one-way delay -> us taken off\): 500us -> [\d.]+ us; rows above were measured with it\./);
    // A library caller's abort, not Ctrl-C: the line names no signal (it said "before Ctrl-C").
    expect(text).toMatch(/left out of the table, their rows not measured with it before the run was interrupted: 1ms -> [\d.]+ us\./);
    // The CLI's SIGTERM is named as the verdict names it.
    const byTerm = renderCalibrateTable({ ...report, verdict: report.verdict.replace(/^interrupted/, 'interrupted (SIGTERM)') });
    expect(byTerm).toMatch(/left out of the table, their rows not measured with it before the run was interrupted \(SIGTERM\): 1ms -> [\d.]+ us\./);
  });

  it('refuses a negative RTT before starting anything', async () => {
    await expect(runCalibrate({ rttsUs: [-5] })).rejects.toThrow(/--rtts/);
  });

  it('refuses --samples under 20 a round before starting anything, rather than measuring more than asked', async () => {
    await expect(runCalibrate({ samples: 99, rounds: 5 })).rejects.toThrow(
      '--samples: invalid value 99; expected at least 100 with --rounds 5 (20 PINGs a round',
    );
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['node', 'redis-rtt', 'calibrate', '--samples', '19', '--rounds', '1'])).toBe(2);
      expect(err.mock.calls.map(([c]) => String(c)).join('')).toContain('redis-rtt: --samples: invalid value "19"; expected at least 20 with --rounds 1');
    } finally {
      err.mockRestore();
    }
  });

  it('spreads a row\'s PINGs over the rounds to exactly --samples; a row above 2 ms takes fewer, never under 20 a round', () => {
    expect(proxiedBlocks(1200, 1000, 3)).toEqual([334, 333, 333]);
    expect(proxiedBlocks(0, 100, 5)).toEqual([20, 20, 20, 20, 20]);
    expect(proxiedBlocks(10_000, 1000, 5)).toEqual([60, 60, 60, 60, 60]); // ~3 s of 10 ms round trips
    expect(proxiedBlocks(85_000, 1000, 5)).toEqual([20, 20, 20, 20, 20]); // 50 by the cap, 20 a round by the floor
    expect(proxiedBlocks(85_000, 30, 1)).toEqual([30]); // never more than asked
  });

  it('the table is half of each RTT\'s excess per one-way delay, never negative nor above the delay', () => {
    const r = (rtt: number, added: number): CalibrateRow =>
      ({ label: 'x', configuredRttUs: rtt, samples: 1, rttP50Us: 0, rttP99Us: 0, addedP50Us: added, addedP99Us: 0, errorPct: 0, proxyCpuPct: 0, histogram: '' }) as CalibrateRow;
    expect(tableFrom([r(0, 90), r(1200, 1460), r(200, 300), r(100, 80), r(400, 2000)])).toEqual([
      { delayUs: 50, compUs: 0 },
      { delayUs: 100, compUs: 50 },
      { delayUs: 200, compUs: 200 },
      { delayUs: 600, compUs: 130 },
    ]);
  });
});

describe('calibrate stopped with Ctrl-C', () => {
  it('prints and saves the rows that finished, marked interrupted, and exits 130', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'redis-rtt-cal-int-'));
    try {
      const json = join(dir, 'cal.json');
      const cli = spawn(process.execPath, [BIN, 'calibrate', '--rtts', '0,1ms,2ms', '--samples', '100', '--rounds', '2', '--json', json], {
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own group, signalled as a terminal does: the pinger process gets the SIGINT too.
        detached: true,
      });
      let out = '';
      let err = '';
      cli.stdout.on('data', (d: Buffer) => (out += d.toString()));
      cli.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((resolve) => cli.on('close', (c) => resolve(c)));
      await vi.waitUntil(() => /added p50/.test(err), { timeout: 30_000, interval: 20 });
      process.kill(-cli.pid!, 'SIGINT');
      expect(await exited, err).toBe(130);
      expect(err).toContain('stopping after the current block of PINGs');
      expect(out).toMatch(/^direct\s/m);
      expect(out).toMatch(/^proxy, no delay\s+0\s/m);
      expect(out).toContain('verdict: interrupted (Ctrl-C): only the rows that finished are reported.');
      const saved = JSON.parse(await readFile(json, 'utf8')) as CalibrateReport;
      expect(saved.interrupted).toBe(true);
      // Cut short in the first pass, the file has no table: calibrate says so, and proxy --compensate says why and what to run.
      expect(err).toContain('note: no compensationTable for proxy --compensate: this run was interrupted (Ctrl-C)');
      expect(() => parseCompensateFlag(json)).toThrow(
        /^--compensate: invalid value ".*cal\.json"; expected a calibrate --json result with a compensationTable; this run was interrupted \(Ctrl-C\) .*run `redis-rtt calibrate --json FILE` \(with --compensate auto, the default\) to its end, then pass FILE$/,
      );
      expect(saved.rows.map((r) => r.label).slice(0, 2)).toEqual(['direct', 'proxy, no delay']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('proxy --compensate FILE', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'redis-rtt-comp-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes the saved table at the link\'s own delays (shown in the listening line)', async () => {
    const file = join(dir, 'cal.json');
    await writeFile(file, JSON.stringify({ kind: 'calibrate', compensationTable: [{ delayUs: 100, compUs: 40 }, { delayUs: 600, compUs: 140 }] }));
    const p = await startCliProxy(['--upstream', '127.0.0.1:1', '--up', '350us', '--down', '600us', '--compensate', file]);
    try {
      expect((p.line as unknown as { compensationUs: unknown }).compensationUs).toEqual({ up: 90, down: 140 });
    } finally {
      await p.stop();
    }
  });

  it('with auto (the hop only) on a link under 10 ms it says how to calibrate; with a file or 0 it does not', async () => {
    const stderrOf = async (args: string[]): Promise<string> => {
      const p = await startCliProxy(['--upstream', '127.0.0.1:1', ...args]);
      try {
        await vi.waitUntil(() => p.stderr().includes('not reachable now'), { timeout: 3000, interval: 20 });
        return p.stderr();
      } finally {
        await p.stop();
      }
    };
    expect(await stderrOf(['--rtt', '1.2ms'])).toMatch(/note: --compensate auto takes off the proxy's hop only; .* 1200 us wait .* use --compensate calibrate/);
    expect(await stderrOf(['--preset', 'cross-region'])).not.toContain('note: --compensate auto');
    expect(await stderrOf(['--rtt', '1.2ms', '--compensate', '0'])).not.toContain('note: --compensate auto');
    expect(await stderrOf([])).not.toContain('note: --compensate auto');
  });

  it('a calibrate report without a table is refused saying why and what to run', async () => {
    // The shipped example report: one pass, no table (as a run given --compensate off, a duration or a file saves).
    expect(() => parseCompensateFlag('fixtures/report/calibrate-report.json')).toThrow(
      /a compensationTable; this run measured one pass with the compensation it was given \(--compensate off, a duration or a file\), so it derived no table: run `redis-rtt calibrate --json FILE`/,
    );
    const zeroOnly = join(dir, 'zero.json');
    await writeFile(zeroOnly, JSON.stringify({ kind: 'calibrate', rows: [{ label: 'proxy, no delay', configuredRttUs: 0 }], verdict: '' }));
    expect(() => parseCompensateFlag(zeroOnly)).toThrow(/this run measured no RTT above 0 \(--rtts\), so it derived no table/);
  });

  it('a file with a bad table exits 2 naming the entry', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify([{ delayUs: 100, compUs: -5 }]));
    const r = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--compensate', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--compensate: invalid value ".*bad\.json entry 0"; expected delayUs and compUs as non-negative/);
  });
});

describe('proxy --compensate calibrate', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  // Wall-clock figures on a shared 2-core machine: a run that lands in someone else's burst is tried again (a
  // retry, not a looser bound; a real regression fails every try).
  it('measures the link against the upstream before listening and takes off what it adds', { timeout: 90_000, retry: 2 }, async () => {
    const p = await startCliProxy(['--upstream', redis.address, '--rtt', '2ms', '--compensate', 'calibrate'], { startTimeoutMs: 80_000 });
    try {
      const comp = (p.line as unknown as { compensationUs: { up: number; down: number } }).compensationUs;
      expect(comp.up).toBe(comp.down);
      expect(comp.up).toBeGreaterThanOrEqual(0);
      expect(comp.up).toBeLessThan(1000);
      expect(p.stderr()).toMatch(/calibrated: 1ms one-way -> \d+ us off; added RTT p50 [\d.]+ us with it, [\d.]+ us without \(configured 2000 us\)/);
      // The proxy it started serves with that compensation: a PING through it still costs about the 2 ms.
      const pinger = startPingSession();
      try {
        const rtts = (await pinger.ping({ kind: 'tcp', host: p.host, port: p.port }, 100, 10)).sort((a, b) => a - b);
        expect(rtts[50]!).toBeGreaterThan(1500);
        expect(rtts[50]!).toBeLessThan(3000);
      } finally {
        pinger.close();
      }
    } finally {
      await p.stop();
    }
  });

  it('an asymmetric link shares the measured excess by delay: a direction with none gets none', { timeout: 90_000 }, async () => {
    const p = await startCliProxy(['--upstream', redis.address, '--up', '0', '--down', '2ms', '--compensate', 'calibrate'], { startTimeoutMs: 80_000 });
    try {
      const comp = (p.line as unknown as { compensationUs: { up: number; down: number } }).compensationUs;
      expect(comp.up).toBe(0);
      expect(comp.down).toBeGreaterThanOrEqual(0);
      expect(comp.down).toBeLessThan(2000);
      expect(p.stderr()).toMatch(/calibrated: 0 us off up, \d+ us off down \(the excess shared by delay\)/);
    } finally {
      await p.stop();
    }
  });

  it('a link with no delay has nothing to calibrate: it says so and compensates the hop', { timeout: 30_000 }, async () => {
    const p = await startCliProxy(['--upstream', redis.address, '--compensate', 'calibrate']);
    try {
      expect(p.stderr()).toMatch(/adds no delay, so there is nothing to take off/);
    } finally {
      await p.stop();
    }
  });

  it('an unreachable upstream exits 2 and says why', { timeout: 30_000 }, async () => {
    const r = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--rtt', '1ms', '--compensate', 'calibrate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--compensate: invalid value "calibrate"; expected a reachable --upstream to calibrate against \(.*ECONNREFUSED/);
  });
});

describe('calibrate verdict', () => {
  const row = (label: string, configuredRttUs: number | null, addedP50Us: number | null) =>
    ({ label, configuredRttUs, addedP50Us }) as CalibrateRow;
  it('holds the hop against its 60 us target and each delayed row against max(5%, 20 us)', () => {
    const rows = [row('direct', null, null), row('proxy, no delay', 0, 44), row('200us', 200, 215), row('1.2ms', 1200, 1300)];
    const text = verdict(rows);
    expect(text).toMatch(/^proxy hop with no delay adds 44 us at p50 \(ok, target under 60 us\); 200us: ok \(\+15 us at p50, allowed \+-20\); 1\.2ms: OFF \(\+100 us at p50, allowed \+-60\)\./);
    expect(verdict([row('proxy, no delay', 0, 64)])).toMatch(/^proxy hop with no delay adds 64 us at p50 \(over, target under 60 us\)/);
  });

  it('has no empty clause when there is no delayed row (--rtts 0) or no hop row', () => {
    // It read 'proxy hop ... target under 60 us); . Tolerance: ...'.
    expect(verdict([row('direct', null, null), row('proxy, no delay', 0, 44)])).toMatch(
      /^proxy hop with no delay adds 44 us at p50 \(ok, target under 60 us\)\. Tolerance: max\(5%, 20 us\)\. \d+ CPUs\.$/,
    );
    expect(verdict([row('1ms', 1000, 1010)], [row('1ms', 1000, 1500)])).toMatch(
      /^with the calibrated table: 1ms: ok \(\+10 us at p50, allowed \+-50\)\. Tolerance: .* CPUs\. Without the table: 1ms: OFF \(\+500 us/,
    );
  });
});
