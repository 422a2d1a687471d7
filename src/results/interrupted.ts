/** The signals a run's stop names (the CLI aborts with the signal's name as the reason: stop-request.ts). */
export type StopSignalName = 'SIGINT' | 'SIGTERM';

/** A report stopped early on request: what finished, marked so a reader of the JSON need not parse the notes. */
export interface InterruptedMark {
  /** Ctrl-C or SIGTERM (or the library caller's signal) stopped the run: the results hold what finished. */
  interrupted?: true;
  /** Which signal it was, when the abort's reason names one (the CLI's). */
  stoppedBy?: StopSignalName;
}

/**
 * `{ interrupted: true, stoppedBy }` when `signal` was aborted, else nothing: as calibrate and
 * `bench --cluster` mark theirs (docs/cli.md, "Errors"). bench and `bench --rate` said it in a note alone.
 */
export function interruptedMark(signal: AbortSignal | undefined): InterruptedMark {
  if (!signal?.aborted) return {};
  const reason: unknown = signal.reason;
  return { interrupted: true, ...(reason === 'SIGINT' || reason === 'SIGTERM' ? { stoppedBy: reason } : {}) };
}
