import { cpus } from 'node:os';
import { startPrivateRedis } from '../redis/index.js';
import { startProxy } from '../proxy/index.js';
import { LatencyHistogram } from '../stats/histogram.js';
import { formatUs } from '../units.js';
import { describeEnvironment } from '../workload/environment.js';
import type { CalibrateReport, CalibrateRow } from '../workload/types.js';
import { pingFromChild } from './pinger.js';

export interface CalibrateOptions {
  /** RTTs to test, microseconds (0 = the proxy with no delay). @default [0, 200, 1200, 5000, 10000] */
  rttsUs?: number[];
  /** PINGs per row (rows above 2 ms take fewer, to bound the run). @default 1000 */
  samples?: number;
  /** Hop compensation: undefined = auto. */
  compensationUs?: { up: number; down: number };
  progress?: (line: string) => void;
}

export const DEFAULT_CALIBRATE_RTTS_US = [0, 200, 1200, 5000, 10_000];

/**
 * Measures what a client really sees: PING RTT direct, then through the proxy at each RTT, each
 * proxy row bracketed by direct rows so drift on a noisy machine does not count as error.
 */
export async function runCalibrate(options: CalibrateOptions = {}): Promise<CalibrateReport> {
  const rtts = options.rttsUs ?? DEFAULT_CALIBRATE_RTTS_US;
  const samples = options.samples ?? 1000;
  const progress = options.progress ?? (() => {});
  const redis = await startPrivateRedis();
  try {
    const environment = describeEnvironment(redis.version, new Date());
    const target = { host: redis.host, port: redis.port };
    const rows: CalibrateRow[] = [];
    const directAll: number[] = [];
    const direct = async (): Promise<number[]> => {
      const xs = await pingFromChild(target, Math.min(samples, 500));
      directAll.push(...xs);
      return xs;
    };
    const proxy = await startProxy({ upstream: redis.address, compensationUs: options.compensationUs });
    let idleCpuPct = 0;
    const compensationUs = proxy.compensationUs.up;
    try {
      progress(`calibrate: hop compensation ${proxy.compensationUs.up} us per direction`);
      for (const rttUs of rtts) {
        const n = rttUs > 2000 ? Math.max(50, Math.min(samples, Math.round(3_000_000 / rttUs))) : samples;
        progress(`calibrate: ${rttUs === 0 ? 'proxy, no delay' : formatUs(rttUs) + ' RTT'}, ${n} PINGs`);
        const before = await direct();
        proxy.setLink({ rttUs });
        proxy.resetStats();
        const cpu0 = process.cpuUsage();
        const t0 = process.hrtime.bigint();
        const through = await pingFromChild({ host: proxy.host, port: proxy.port }, n);
        const cpu = process.cpuUsage(cpu0);
        const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
        const after = await direct();
        const base = [...before, ...after];
        const r = row(rttUs === 0 ? 'proxy, no delay' : formatUs(rttUs), rttUs, through, base, ((cpu.user + cpu.system) / wallUs) * 100);
        const late = proxy.deliveryLatenessUs();
        if (late.count > 0) {
          r.lateP50Us = late.p50;
          r.lateP99Us = late.p99;
        }
        rows.push(r);
      }
      proxy.setLink({ rttUs: 0 });
      idleCpuPct = await idleCpu(proxy.host!, proxy.port!);
    } finally {
      await proxy.close();
    }
    rows.unshift(row('direct', null, directAll, directAll, null));
    return {
      kind: 'calibrate',
      environment,
      rows,
      idleCpuPct,
      compensationUs,
      verdict: verdict(rows),
    };
  } finally {
    await redis.stop();
  }
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

function verdict(rows: CalibrateRow[]): string {
  const parts: string[] = [];
  for (const r of rows) {
    if (r.configuredRttUs === null || r.configuredRttUs === 0 || r.addedP50Us === null) continue;
    const errUs = r.addedP50Us - r.configuredRttUs;
    const allowedUs = Math.max(0.05 * r.configuredRttUs, 20);
    parts.push(`${r.label}: ${Math.abs(errUs) <= allowedUs ? 'ok' : 'OFF'} (${errUs >= 0 ? '+' : ''}${errUs.toFixed(0)} us at p50, allowed +-${allowedUs.toFixed(0)})`);
  }
  const zero = rows.find((r) => r.configuredRttUs === 0);
  const late = rows.find((r) => r.lateP50Us != null)?.lateP50Us ?? 0;
  const hop =
    zero?.addedP50Us != null
      ? `proxy hop with no delay adds ${zero.addedP50Us.toFixed(0)} us at p50 (suggested --compensate ${Math.max(0, Math.round(zero.addedP50Us / 2 + late))}us); `
      : '';
  return `${hop}${parts.join('; ')}. Tolerance: max(5%, 20 us). ${cpus().length} CPUs.`;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
