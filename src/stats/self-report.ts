/** The proxy's report on its own lateness (/stats `self`); measured by proxy/self-monitor.ts. */
export interface SelfQuantiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  count: number;
  mean: number;
  /** Every value added up: a Prometheus summary's _sum. */
  sum: number;
}

export interface SelfReport {
  /** Each scheduled delivery's write time minus its due time. */
  lateUs: SelfQuantiles;
  lateUsByDirection: { up: SelfQuantiles; down: SelfQuantiles };
  /**
   * Per delivered chunk (timed or not): its write time minus (estimated arrival + configured
   * delay). The arrival is the read's stamp less an estimate of how long the bytes waited for the
   * read (stalls of the loop since the previous read, a sleeping thread's wake-up). What the proxy
   * adds to what a client sees, bounded as docs/self-report.md says.
   */
  addedUs: SelfQuantiles;
  /**
   * Per reply chunk delivered to the client: its addedUs plus that of the last request chunk
   * delivered to Redis on the same connection before it. What one round trip of a client carries
   * of the proxy's own time, both directions: the figure to hold against a client's excess.
   */
  roundTripAddedUs: SelfQuantiles;
  /**
   * Per read, in one event-loop turn of eight: time since the turn's first watched read (0 for
   * it). What a read waited behind other connections' work; not the kernel-to-wake-up time.
   */
  arrivalLagUs: SelfQuantiles;
  /** How late a timer runs, sampled every 50 ms while connections were open (proxy/loop-delay.ts). */
  eventLoopDelayUs: SelfQuantiles;
  gcPauseUs: SelfQuantiles;
}

/** The proxy's own p99 counts as too much past this: max(100 us, a tenth of the link's RTT). */
export function selfBudgetUs(rttUs: number): number {
  return Math.max(100, rttUs / 10);
}

/**
 * The line a report gives about one link's proxy: its own added time per round trip
 * (roundTripAddedUs; per chunk, addedUs, where no reply left), and a warning when that p99 is past
 * `selfBudgetUs`, since the link's figures then carry the proxy's own delay as well as the
 * configured one. Undefined when nothing was delivered.
 */
export function selfReportNote(linkName: string, self: SelfReport, rttUs: number): string | undefined {
  const perRoundTrip = self.roundTripAddedUs.count > 0;
  const added = perRoundTrip ? self.roundTripAddedUs : self.addedUs;
  if (added.count === 0) return undefined;
  const budgetUs = selfBudgetUs(rttUs);
  const figures = `p99 ${added.p99} us (p50 ${added.p50}, max ${added.max}, ${added.count} ${perRoundTrip ? 'replies' : 'chunks'})`;
  if (added.p99 <= budgetUs) return `${linkName}: proxy's own added time ${figures}`;
  return (
    `warning: ${linkName}: the proxy's own added time is ${figures}, over max(100 us, RTT/10) = ` +
    `${Math.round(budgetUs)} us: this link's latencies include that much of the proxy's own delay ` +
    `(a loaded machine, or the driver sharing its CPU)`
  );
}
