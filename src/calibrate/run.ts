import { ConfigError } from '../errors.js';
import { keysOf, refuseUnknownKeys } from '../validation/known-keys.js';
import { rawCommands, startPrivateRedis, versionFromInfo } from '../redis/index.js';
import { dialRedisReady } from '../redis/dial.js';
import { parseRedisEndpoint, type Endpoint } from '../endpoint.js';
import { startSingleNodeProxy } from '../proxy/index.js';
import { fmtUsSetting, interruptedWords } from '../format.js';
import { describeEnvironment } from '../results/environment.js';
import type { CalibrateReport, CalibrateRow } from '../results/types.js';
import { DEFAULT_CALIBRATE_RTTS_US, MIN_PINGS_PER_ROUND, RowMeasurer } from './measure.js';
import { startPingSession, type PingTls } from './pinger.js';
import { loadUpstreamTls, type UpstreamTlsOptions } from '../tls/options.js';
import { round1, row, tableFrom, verdict, withinTolerance } from './rows.js';

export { tableFrom } from './rows.js';
import { NO_COMPENSATION, type Compensation, type CompensationPoint } from '../link/compensation.js';

export interface CalibrateOptions {
  /** RTTs to test, microseconds (0 = the proxy with no delay). @default [0, 200, 1200, 5000, 10000] */
  rttsUs?: number[];
  /**
   * PINGs per row (rows above 2 ms take fewer, to bound the run), spread over `rounds`: at least
   * MIN_PINGS_PER_ROUND (20) a round, so at least 20 x rounds, or a ConfigError. @default 1000
   */
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
  /**
   * Speak TLS to `upstream` (as `proxy --upstream-tls`): the direct PINGs and the proxy's upstream
   * connection both use these options; the proxied PINGs reach the proxy in plaintext. @default false
   */
  upstreamTls?: boolean | UpstreamTlsOptions;
  /** Measure the idle proxy's CPU at the end (one second); without it, idleCpuPct is null. @default true */
  idleCpu?: boolean;
  progress?: (line: string) => void;
  /**
   * Aborted (the CLI's Ctrl-C): stop before the next block of PINGs and resolve with the rows that
   * finished, `interrupted: true`; no pass or refinement starts after it, nor the idle CPU second.
   */
  signal?: AbortSignal;
}

const WARMUP_PINGS = 5000;
const MAX_REFINE_PASSES = 2;
/** The verdict's first words when the run was cut short: which signal did it, when a signal did. */
function interrupted(signal: AbortSignal | undefined): string {
  return `${interruptedWords(signal?.reason)}: only the rows that finished are reported.`;
}

const CALIBRATE_OPTION_KEYS = keysOf<CalibrateOptions>()({
  rttsUs: true, samples: true, compensationUs: true, rounds: true, upstream: true, upstreamTls: true, idleCpu: true, progress: true, signal: true,
});

/**
 * Measures what a client really sees: PING RTT direct and through the proxy at each RTT, from one
 * long-lived client process. Each row alternates direct and proxied blocks (order flipped per
 * round), so drift on a noisy machine lands on both sides instead of in the error; the proxy is
 * warmed up first, so its JIT is not measured either.
 */
export async function runCalibrate(options: CalibrateOptions = {}): Promise<CalibrateReport> {
  refuseUnknownKeys(options, CALIBRATE_OPTION_KEYS, 'runCalibrate()');
  // One row per RTT, in the order given: the table has one point per delay.
  const rtts = [...new Set(options.rttsUs ?? DEFAULT_CALIBRATE_RTTS_US)];
  for (const r of rtts) {
    if (!Number.isFinite(r) || r < 0) throw new ConfigError('--rtts', r, 'durations of zero or more');
  }
  const samples = options.samples ?? 1000;
  const rounds = options.rounds ?? 5;
  // As --rounds takes it: 0, 2.5 or NaN was made 1 or 2 without a word.
  if (!(Number.isInteger(rounds) && rounds >= 1 && rounds <= 1000)) throw new ConfigError('--rounds', rounds, 'a whole number from 1 to 1000');
  if (!(samples >= MIN_PINGS_PER_ROUND * rounds)) {
    throw new ConfigError(
      '--samples',
      samples,
      `at least ${MIN_PINGS_PER_ROUND * rounds} with --rounds ${rounds} (${MIN_PINGS_PER_ROUND} PINGs a round: a round's median of fewer is mostly noise)`,
    );
  }
  const progress = options.progress ?? (() => {});
  const stopped = (): boolean => options.signal?.aborted === true;
  const auto = options.compensationUs === undefined;
  const upstreamEndpoint = options.upstream === undefined ? undefined : parseRedisEndpoint(options.upstream, '--upstream');
  if (options.upstreamTls && upstreamEndpoint?.kind !== 'tcp') throw new ConfigError('--upstream-tls', options.upstream ?? 'a private Redis', 'a host:port --upstream');
  const secure = options.upstreamTls && upstreamEndpoint?.kind === 'tcp' ? pingTls(options.upstreamTls, upstreamEndpoint.host) : undefined;
  const own = upstreamEndpoint ? undefined : await startPrivateRedis();
  const direct: Endpoint = own ? { kind: 'tcp', host: own.host!, port: own.port! } : upstreamEndpoint!;
  const pinger = startPingSession();
  try {
    const environment = describeEnvironment(own ? own.version : await redisVersion(direct, secure), new Date());
    const proxy = await startSingleNodeProxy({
      upstream: own ? own.address : options.upstream!,
      upstreamTls: own ? undefined : options.upstreamTls,
      compensationUs: options.compensationUs ?? NO_COMPENSATION,
      log: () => {},
    });
    const through: Endpoint = { kind: 'tcp', host: proxy.host!, port: proxy.port! };
    let idleCpuPct: number | null = null;
    const signal = options.signal ? { signal: options.signal } : {};
    const measurer = new RowMeasurer({ pinger, proxy, direct, directTls: secure, through, rounds, samples, progress, ...signal });
    let rows: CalibrateRow[];
    let uncalibratedRows: CalibrateRow[] | undefined;
    let compensationTable: CompensationPoint[] | undefined;
    let uncheckedCompensation: CompensationPoint[] | undefined;
    try {
      progress(`calibrate: warming up (${WARMUP_PINGS} PINGs each way)`);
      proxy.setLink({ rttUs: 0 });
      if (!stopped()) await pinger.ping(direct, WARMUP_PINGS, 0, undefined, secure);
      if (!stopped()) await pinger.ping(through, WARMUP_PINGS);
      rows = await measurer.pass(auto ? 'uncompensated, ' : '', rtts);
      const delayed = rtts.filter((r) => r > 0);
      // A first pass cut short derives no table: its rows stay what they are, measured without one.
      if (auto && delayed.length > 0 && !stopped()) {
        uncalibratedRows = rows;
        compensationTable = tableFrom(rows);
        proxy.setCompensation({ table: compensationTable });
        progress(`calibrate: table ${compensationTable.map((p) => `${fmtUsSetting(p.delayUs)} -> ${p.compUs} us`).join(', ')}; measuring again with it`);
        let calibrated = await measurer.pass('calibrated, ', delayed);
        // The excess is not linear in the delay taken off (a shorter sleep wakes faster), so rows
        // still outside the tolerance get their point moved by the remaining error and are
        // measured again; every row reported was measured with the table as finally saved.
        for (let refine = 0; refine < MAX_REFINE_PASSES && !stopped(); refine++) {
          const off = calibrated.filter((r) => !withinTolerance(r));
          if (off.length === 0) break;
          const pointOf = (r: CalibrateRow): CompensationPoint => compensationTable!.find((p) => p.delayUs === r.configuredRttUs! / 2)!;
          const measuredWith = new Map(off.map((r) => [r, pointOf(r).compUs]));
          for (const r of off) {
            const point = pointOf(r);
            point.compUs = Math.min(point.delayUs, Math.max(0, Math.round(point.compUs + (r.addedP50Us! - r.configuredRttUs!) / 2)));
          }
          proxy.setCompensation({ table: compensationTable });
          const again = await measurer.pass(`refining (${refine + 1}/${MAX_REFINE_PASSES}), `, off.map((r) => r.configuredRttUs!));
          calibrated = calibrated.map((r) => again.find((a) => a.configuredRttUs === r.configuredRttUs) ?? r);
          // Ctrl-C before a row was measured again: its point goes back to what the row was measured with.
          for (const [r, compUs] of measuredWith) if (!again.some((a) => a.configuredRttUs === r.configuredRttUs)) pointOf(r).compUs = compUs;
        }
        rows = [...rows.filter((r) => r.configuredRttUs === 0), ...calibrated];
        // Ctrl-C in the second pass: a point whose row was never measured with the table is only
        // the first pass's guess; it is left out of the table saved, and listed apart.
        const checked = checkedPoints(compensationTable, calibrated);
        if (checked.length < compensationTable.length) {
          uncheckedCompensation = compensationTable.filter((p) => !checked.includes(p));
          compensationTable = checked.length > 0 ? checked : undefined;
        }
      }
      proxy.setLink({ rttUs: 0 });
      if (options.idleCpu !== false && !stopped()) idleCpuPct = await idleCpu(proxy.host!, proxy.port!);
    } finally {
      await proxy.close();
    }
    if (measurer.directAll.length > 0) rows.unshift(row('direct', null, measurer.directAll, measurer.directAll, null));
    const constant = options.compensationUs && !('table' in options.compensationUs) ? options.compensationUs.up : undefined;
    const wasInterrupted = stopped();
    const judged = verdict(rows, uncalibratedRows);
    return {
      kind: 'calibrate',
      environment,
      rows,
      idleCpuPct,
      ...(constant === undefined ? {} : { compensationUs: constant }),
      ...(uncalibratedRows ? { uncalibratedRows } : {}),
      ...(compensationTable ? { compensationTable } : {}),
      ...(uncheckedCompensation ? { uncheckedCompensation } : {}),
      ...(wasInterrupted ? { interrupted: true as const } : {}),
      verdict: wasInterrupted ? `${interrupted(options.signal)} ${judged}` : judged,
    };
  } finally {
    pinger.close();
    await own?.stop();
  }
}

/** The points of `table` whose RTT has a row in `measuredWith` (rows measured with the table). */
function checkedPoints(table: CompensationPoint[], measuredWith: CalibrateRow[]): CompensationPoint[] {
  return table.filter((p) => measuredWith.some((r) => r.configuredRttUs === p.delayUs * 2));
}

/** The upstream TLS options as the pinger process takes them (JSON: PEM text). Files are checked here (ConfigError naming the flag). */
function pingTls(o: true | UpstreamTlsOptions, host: string): PingTls {
  const c = loadUpstreamTls(o === true ? {} : o, host, () => undefined);
  const text = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));
  return { ca: text(c.ca), cert: text(c.cert), key: text(c.key), servername: c.servername, rejectUnauthorized: c.rejectUnauthorized };
}

async function redisVersion(at: Endpoint, secure: PingTls | undefined): Promise<string> {
  try {
    const [info] = await rawCommands(at, [['INFO', 'server']], 1000, secure);
    return versionFromInfo(info?.text ?? '') ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** CPU of the proxy's process over one second with one idle client connected. */
async function idleCpu(host: string, port: number): Promise<number> {
  const s = await dialRedisReady({ kind: 'tcp', host, port });
  await new Promise((r) => setTimeout(r, 100));
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, 1000));
  const c = process.cpuUsage(c0);
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
  s.destroy();
  return round1(((c.user + c.system) / wallUs) * 100);
}

