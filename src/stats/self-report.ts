/** The proxy's report on its own lateness (/stats `self`); measured by proxy/self-monitor.ts. */
export interface SelfQuantiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  count: number;
  /** Mean, for a Prometheus summary's _sum. */
  mean: number;
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
   * Per read, in one event-loop turn of eight: time since the turn's first watched read (0 for
   * it). What a read waited behind other connections' work; not the kernel-to-wake-up time.
   */
  arrivalLagUs: SelfQuantiles;
  /** perf_hooks.monitorEventLoopDelay at 10 ms resolution, while connections were open. */
  eventLoopDelayUs: SelfQuantiles;
  gcPauseUs: SelfQuantiles;
}
