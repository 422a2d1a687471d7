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
   * Per read, in one event-loop turn of eight: time since the turn's first watched read (0 for
   * it). What a read waited behind other connections' work; not the kernel-to-wake-up time.
   */
  arrivalLagUs: SelfQuantiles;
  /** perf_hooks.monitorEventLoopDelay at 10 ms resolution, while connections were open. */
  eventLoopDelayUs: SelfQuantiles;
  gcPauseUs: SelfQuantiles;
}
