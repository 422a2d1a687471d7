import { fmtUsSetting } from '../format.js';
import type { RedisRttProxy } from '../proxy/types.js';
import type { CalibrateRow } from '../results/types.js';
import type { Endpoint } from '../endpoint.js';
import type { PingSession, PingTls } from './pinger.js';
import { quantile } from '../numbers/quantiles.js';
import { round1, row } from './rows.js';

export interface RowMeasurerOptions {
  pinger: PingSession;
  proxy: RedisRttProxy;
  direct: Endpoint;
  /** TLS to the upstream, when it speaks TLS. */
  directTls?: PingTls;
  through: Endpoint;
  /** Alternating direct/proxied blocks per row. */
  rounds: number;
  /** PINGs per row (rows above 2 ms take fewer, ~3 s each): see proxiedBlocks. */
  samples: number;
  progress: (line: string) => void;
  /** Aborted (Ctrl-C): stop before the next block; the row it was in is not reported. */
  signal?: AbortSignal;
}

/**
 * The fewest PINGs in one block. A round's added p50 is the difference of two block medians; with
 * fewer than this, one slow wake-up moves a median by a whole step and the round measures noise.
 * runCalibrate refuses a --samples that cannot give every round this many, rather than silently
 * measuring more than asked.
 */
export const MIN_PINGS_PER_ROUND = 20;

/** The RTTs a run measures when none are given; here, not in run.ts, so that the CLI's help shows them without loading the run. */
export const DEFAULT_CALIBRATE_RTTS_US = [0, 200, 1200, 5000, 10_000];

/** Above this RTT a row is capped at about ROW_BUDGET_US of round trips, so a slow row does not take minutes. */
const SLOW_ROW_RTT_US = 2000;
const ROW_BUDGET_US = 3_000_000;
const SLOW_ROW_MIN_PINGS = 50;

/**
 * PINGs in each round's proxied block: the row's PINGs (`samples`, or fewer on a slow row) spread
 * over the rounds as evenly as whole numbers allow, so they add up to exactly that, and never fewer
 * than MIN_PINGS_PER_ROUND in one block (only a slow row's cap can ask for fewer).
 */
export function proxiedBlocks(rttUs: number, samples: number, rounds: number): number[] {
  const n = rttUs > SLOW_ROW_RTT_US ? Math.min(samples, Math.max(SLOW_ROW_MIN_PINGS, Math.round(ROW_BUDGET_US / rttUs))) : samples;
  return Array.from({ length: rounds }, (_, r) => Math.max(MIN_PINGS_PER_ROUND, Math.floor(n / rounds) + (r < n % rounds ? 1 : 0)));
}

/**
 * Measures calibration rows: for each RTT, `rounds` rounds of a direct block and a proxied block,
 * their order flipped every round, so drift on a noisy machine lands on both sides instead of in
 * the error. Added p50 is the median of the rounds' (proxied p50 - direct p50).
 */
export class RowMeasurer {
  /** Every direct sample of the rows that finished, for the report's `direct` row. */
  readonly directAll: number[] = [];

  constructor(private readonly o: RowMeasurerOptions) {}

  /** One row per RTT, in order, with a progress line before and after each; on abort, the rows that finished. */
  async pass(label: string, rttsUs: number[]): Promise<CalibrateRow[]> {
    const { samples, rounds, progress } = this.o;
    const out: CalibrateRow[] = [];
    for (const rttUs of rttsUs) {
      if (this.o.signal?.aborted) break;
      const blocks = proxiedBlocks(rttUs, samples, rounds);
      const pings = blocks.reduce((a, b) => a + b, 0);
      progress(`calibrate: ${label}${rttUs === 0 ? 'proxy, no delay' : fmtUsSetting(rttUs) + ' RTT'}, ${pings} PINGs in ${rounds} rounds`);
      const r = await this.measureRow(rttUs, blocks);
      if (!r) break;
      progress(`calibrate:   added p50 ${r.addedP50Us} us (${r.addedMinUs}..${r.addedMaxUs})${r.errorPct === null ? '' : `, error ${r.errorPct}%`}`);
      out.push(r);
    }
    return out;
  }

  /** The row, or undefined when the signal stopped it between two blocks. */
  private async measureRow(rttUs: number, blocks: number[]): Promise<CalibrateRow | undefined> {
    const { pinger, proxy, direct, directTls, through, rounds } = this.o;
    proxy.setLink({ rttUs });
    proxy.resetStats();
    const proxied: number[] = [];
    const base: number[] = [];
    const added: number[] = [];
    let cpuUs = 0;
    let wallUs = 0;
    for (let r = 0; r < rounds; r++) {
      const perRound = blocks[r]!;
      const directPerRound = Math.min(perRound, 400);
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
        d = await pinger.ping(direct, directPerRound, 10, undefined, directTls);
      };
      for (const run of r % 2 === 0 ? [runDirect, runProxied] : [runProxied, runDirect]) {
        if (this.o.signal?.aborted) return undefined;
        await run();
      }
      proxied.push(...p);
      base.push(...d);
      added.push(quantile(p, 0.5) - quantile(d, 0.5));
    }
    this.directAll.push(...base);
    const result = row(rttUs === 0 ? 'proxy, no delay' : fmtUsSetting(rttUs), rttUs, proxied, base, (cpuUs / wallUs) * 100);
    result.rounds = rounds;
    result.addedP50Us = round1(quantile(added, 0.5));
    result.addedMinUs = round1(Math.min(...added));
    result.addedMaxUs = round1(Math.max(...added));
    result.errorPct = rttUs === 0 ? null : round1(((result.addedP50Us - rttUs) / rttUs) * 100);
    const late = proxy.deliveryLatenessUs();
    if (late.count > 0) {
      result.lateP50Us = late.p50;
      result.lateP99Us = late.p99;
    }
    return result;
  }
}
