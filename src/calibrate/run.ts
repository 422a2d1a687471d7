import { cpus } from 'node:os';
import { ConfigError } from '../errors.js';
import { rawCommands, startPrivateRedis } from '../redis/index.js';
import { parseEndpoint } from '../proxy/endpoint.js';
import { startProxy } from '../proxy/index.js';
import { LatencyHistogram } from '../stats/histogram.js';
import { formatUs } from '../units.js';
import { describeEnvironment } from '../workload/environment.js';
import type { CalibrateReport, CalibrateRow } from '../workload/types.js';
import { startPingSession, type PingTarget } from './pinger.js';
import { NO_COMPENSATION, type Compensation, type CompensationPoint } from '../link/compensation.js';

export interface CalibrateOptions {
  /** RTTs to test, microseconds (0 = the proxy with no delay). @default [0, 200, 1200, 5000, 10000] */
  rttsUs?: number[];
  /** PINGs per row (rows above 2 ms take fewer, to bound the run). @default 1000 */
  samples?: number;
  /**
   * Undefined (auto): measure with no compensation, derive a table from each RTT's excess, then
   * measure again with it (the rows reported). Otherwise one pass with this compensation.
   */
  compensationUs?: Compensation;
  /** Alternating direct/proxied blocks per row. @default 5 */
  rounds?: number;
  /**
   * Calibrate against this Redis ("host:port" or "unix:/path") instead of a private one it spawns.
   * Only PINGs are sent (an error reply, e.g. NOAUTH, still times a round trip).
   */
  upstream?: string;
  /** Measure the idle proxy's CPU at the end (one second). @default true */
  idleCpu?: boolean;
  progress?: (line: string) => void;
}

export const DEFAULT_CALIBRATE_RTTS_US = [0, 200, 1200, 5000, 10_000];
const WARMUP_PINGS = 5000;
const MAX_REFINE_PASSES = 2;

/**
 * Measures what a client really sees: PING RTT direct and through the proxy at each RTT, from one
 * long-lived client process. Each row alternates direct and proxied blocks (order flipped per
 * round), so drift on a noisy machine lands on both sides instead of in the error; the proxy is
 * warmed up first, so its JIT is not measured either.
 */
export async function runCalibrate(options: CalibrateOptions = {}): Promise<CalibrateReport> {
  // One row per RTT, in the order given: the table has one point per delay.
  const rtts = [...new Set(options.rttsUs ?? DEFAULT_CALIBRATE_RTTS_US)];
  for (const r of rtts) {
    if (!Number.isFinite(r) || r < 0) throw new ConfigError('--rtts', r, 'durations of zero or more');
  }
  const samples = options.samples ?? 1000;
  const rounds = Math.max(1, Math.floor(options.rounds ?? 5));
  const progress = options.progress ?? (() => {});
  const auto = options.compensationUs === undefined;
  const upstreamEndpoint = options.upstream === undefined ? undefined : parseEndpoint(options.upstream, '--upstream');
  const own = upstreamEndpoint ? undefined : await startPrivateRedis();
  const direct: PingTarget = own
    ? { host: own.host, port: own.port }
    : upstreamEndpoint!.kind === 'tcp'
      ? { host: upstreamEndpoint!.host, port: upstreamEndpoint!.port }
      : { path: upstreamEndpoint!.path };
  const pinger = startPingSession();
  try {
    const environment = describeEnvironment(own ? own.version : await redisVersion(direct), new Date());
    const proxy = await startProxy({
      upstream: own ? own.address : options.upstream!,
      compensationUs: options.compensationUs ?? NO_COMPENSATION,
      log: () => {},
    });
    const through: PingTarget = { host: proxy.host, port: proxy.port };
    let idleCpuPct = 0;
    const directAll: number[] = [];
    const pass = async (label: string, which: number[]): Promise<CalibrateRow[]> => {
      const out: CalibrateRow[] = [];
      for (const rttUs of which) {
        const n = rttUs > 2000 ? Math.max(50, Math.min(samples, Math.round(3_000_000 / rttUs))) : samples;
        progress(`calibrate: ${label}${rttUs === 0 ? 'proxy, no delay' : formatUs(rttUs) + ' RTT'}, ${n} PINGs in ${rounds} rounds`);
        const r = await measureRow(rttUs, n);
        progress(`calibrate:   added p50 ${r.addedP50Us} us (${r.addedMinUs}..${r.addedMaxUs})${r.errorPct === null ? '' : `, error ${r.errorPct}%`}`);
        out.push(r);
      }
      return out;
    };
    const measureRow = async (rttUs: number, n: number): Promise<CalibrateRow> => {
      proxy.setLink({ rttUs });
      proxy.resetStats();
      const perRound = Math.max(20, Math.ceil(n / rounds));
      const directPerRound = Math.min(perRound, 400);
      const proxied: number[] = [];
      const base: number[] = [];
      const added: number[] = [];
      let cpuUs = 0;
      let wallUs = 0;
      for (let r = 0; r < rounds; r++) {
        let d: number[] = [];
        let p: number[] = [];
        const runProxied = async (): Promise<void> => {
          const c0 = process.cpuUsage();
          const t0 = process.hrtime.bigint();
          p = await pinger.ping(through, perRound, 10);
          const c = process.cpuUsage(c0);
          cpuUs += c.user + c.system;
          wallUs += Number(process.hrtime.bigint() - t0) / 1000;
        };
        const runDirect = async (): Promise<void> => {
          d = await pinger.ping(direct, directPerRound, 10);
        };
        if (r % 2 === 0) {
          await runDirect();
          await runProxied();
        } else {
          await runProxied();
          await runDirect();
        }
        proxied.push(...p);
        base.push(...d);
        directAll.push(...d);
        added.push(quantile(p, 0.5) - quantile(d, 0.5));
      }
      const r = row(rttUs === 0 ? 'proxy, no delay' : formatUs(rttUs), rttUs, proxied, base, (cpuUs / wallUs) * 100);
      r.rounds = rounds;
      r.addedP50Us = round1(quantile(added, 0.5));
      r.addedMinUs = round1(Math.min(...added));
      r.addedMaxUs = round1(Math.max(...added));
      r.errorPct = rttUs === 0 ? null : round1(((r.addedP50Us - rttUs) / rttUs) * 100);
      const late = proxy.deliveryLatenessUs();
      if (late.count > 0) {
        r.lateP50Us = late.p50;
        r.lateP99Us = late.p99;
      }
      return r;
    };
    let rows: CalibrateRow[];
    let uncalibratedRows: CalibrateRow[] | undefined;
    let compensationTable: CompensationPoint[] | undefined;
    try {
      progress(`calibrate: warming up (${WARMUP_PINGS} PINGs each way)`);
      proxy.setLink({ rttUs: 0 });
      await pinger.ping(direct, WARMUP_PINGS);
      await pinger.ping(through, WARMUP_PINGS);
      rows = await pass(auto ? 'uncompensated, ' : '', rtts);
      const delayed = rtts.filter((r) => r > 0);
      if (auto && delayed.length > 0) {
        uncalibratedRows = rows;
        compensationTable = tableFrom(rows);
        proxy.setCompensation({ table: compensationTable });
        progress(`calibrate: table ${compensationTable.map((p) => `${formatUs(p.delayUs)} -> ${p.compUs} us`).join(', ')}; measuring again with it`);
        let calibrated = await pass('calibrated, ', delayed);
        // The excess is not linear in the delay taken off (a shorter sleep wakes faster), so rows
        // still outside the tolerance get their point moved by the remaining error and are
        // measured again; every row reported was measured with the table as finally saved.
        for (let refine = 0; refine < MAX_REFINE_PASSES; refine++) {
          const off = calibrated.filter((r) => !withinTolerance(r));
          if (off.length === 0) break;
          for (const r of off) {
            const point = compensationTable.find((p) => p.delayUs === r.configuredRttUs! / 2)!;
            point.compUs = Math.min(point.delayUs, Math.max(0, Math.round(point.compUs + (r.addedP50Us! - r.configuredRttUs!) / 2)));
          }
          proxy.setCompensation({ table: compensationTable });
          const again = await pass(`refining (${refine + 1}/${MAX_REFINE_PASSES}), `, off.map((r) => r.configuredRttUs!));
          calibrated = calibrated.map((r) => again.find((a) => a.configuredRttUs === r.configuredRttUs) ?? r);
        }
        rows = [...rows.filter((r) => r.configuredRttUs === 0), ...calibrated];
      }
      proxy.setLink({ rttUs: 0 });
      if (options.idleCpu !== false) idleCpuPct = await idleCpu(proxy.host!, proxy.port!);
    } finally {
      await proxy.close();
    }
    rows.unshift(row('direct', null, directAll, directAll, null));
    const constant = options.compensationUs && !('table' in options.compensationUs) ? options.compensationUs.up : undefined;
    return {
      kind: 'calibrate',
      environment,
      rows,
      idleCpuPct,
      ...(constant === undefined ? {} : { compensationUs: constant }),
      ...(uncalibratedRows ? { uncalibratedRows } : {}),
      ...(compensationTable ? { compensationTable } : {}),
      verdict: verdict(rows, uncalibratedRows),
    };
  } finally {
    pinger.close();
    await own?.stop();
  }
}

async function redisVersion(target: PingTarget): Promise<string> {
  try {
    const [info] = await rawCommands(target.path ? { path: target.path } : { host: target.host!, port: target.port! }, [['INFO', 'server']]);
    return /redis_version:(\S+)/.exec(info?.text ?? '')?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Half of each RTT's measured excess, per one-way delay: what the proxy must take off each
 * direction for the added RTT to come out as configured. Never negative (a link can be slowed to
 * match, but the uncompensated excess is never below zero in practice).
 */
export function tableFrom(rows: CalibrateRow[]): CompensationPoint[] {
  return rows
    .filter((r) => r.configuredRttUs !== null && r.configuredRttUs > 0 && r.addedP50Us !== null)
    .map((r) => ({
      delayUs: r.configuredRttUs! / 2,
      compUs: Math.min(r.configuredRttUs! / 2, Math.max(0, Math.round((r.addedP50Us! - r.configuredRttUs!) / 2))),
    }))
    .sort((a, b) => a.delayUs - b.delayUs);
}

function row(label: string, configuredRttUs: number | null, rtts: number[], base: number[], cpuPct: number | null): CalibrateRow {
  const h = new LatencyHistogram();
  for (const x of rtts) h.record(x);
  const p50 = quantile(rtts, 0.5);
  const p99 = quantile(rtts, 0.99);
  const isDirect = configuredRttUs === null;
  const addedP50Us = isDirect ? null : round1(p50 - quantile(base, 0.5));
  const addedP99Us = isDirect ? null : round1(p99 - quantile(base, 0.99));
  const errorPct =
    isDirect || configuredRttUs === 0 || addedP50Us === null ? null : round1(((addedP50Us - configuredRttUs) / configuredRttUs) * 100);
  return {
    label,
    configuredRttUs,
    samples: rtts.length,
    rttP50Us: round1(p50),
    rttP99Us: round1(p99),
    addedP50Us,
    addedP99Us,
    errorPct,
    proxyCpuPct: cpuPct === null ? null : round1(cpuPct),
    histogram: h.encode(),
  };
}

/** CPU of the proxy's process over one second with one idle client connected. */
async function idleCpu(host: string, port: number): Promise<number> {
  const net = await import('node:net');
  const s = net.connect({ host, port });
  await new Promise((r) => s.once('connect', r));
  await new Promise((r) => setTimeout(r, 100));
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, 1000));
  const c = process.cpuUsage(c0);
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
  s.destroy();
  return round1(((c.user + c.system) / wallUs) * 100);
}

/** The target: added p50 within max(5%, 20 us) of the configured RTT. */
const allowedUs = (rttUs: number): number => Math.max(0.05 * rttUs, 20);

function withinTolerance(r: CalibrateRow): boolean {
  if (r.configuredRttUs === null || r.configuredRttUs === 0 || r.addedP50Us === null) return true;
  return Math.abs(r.addedP50Us - r.configuredRttUs) <= allowedUs(r.configuredRttUs);
}

function verdict(rows: CalibrateRow[], uncalibrated?: CalibrateRow[]): string {
  const judge = (rs: CalibrateRow[]): string[] => {
    const parts: string[] = [];
    for (const r of rs) {
      if (r.configuredRttUs === null || r.configuredRttUs === 0 || r.addedP50Us === null) continue;
      const errUs = r.addedP50Us - r.configuredRttUs;
      parts.push(`${r.label}: ${withinTolerance(r) ? 'ok' : 'OFF'} (${errUs >= 0 ? '+' : ''}${errUs.toFixed(0)} us at p50, allowed +-${allowedUs(r.configuredRttUs).toFixed(0)})`);
    }
    return parts;
  };
  const zero = rows.find((r) => r.configuredRttUs === 0);
  const hop = zero?.addedP50Us != null ? `proxy hop with no delay adds ${zero.addedP50Us.toFixed(0)} us at p50; ` : '';
  const before = uncalibrated ? ` Without the table: ${judge(uncalibrated).join('; ')}.` : '';
  const which = uncalibrated ? 'with the calibrated table: ' : '';
  return `${hop}${which}${judge(rows).join('; ')}. Tolerance: max(5%, 20 us). ${cpus().length} CPUs.${before}`;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
