/** The signals a run's stop names (the CLI aborts with the signal's name as the reason: stop-request.ts). */
export type StopSignalName = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** The names above: an abort's reason that is one of them names the signal that stopped the run. */
const STOP_SIGNAL_NAMES: readonly unknown[] = ['SIGINT', 'SIGTERM', 'SIGHUP'] satisfies StopSignalName[];

/** The signal an abort's reason names, if it names one (a library caller's own reason names none). */
function stopSignalOf(reason: unknown): StopSignalName | undefined {
  return STOP_SIGNAL_NAMES.includes(reason) ? (reason as StopSignalName) : undefined;
}

/** A report stopped early on request: what finished, marked so a reader of the JSON need not parse the notes. */
export interface InterruptedMark {
  /** Ctrl-C, SIGTERM or SIGHUP (or the library caller's signal) stopped the run: the results hold what finished. */
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
  // SIGHUP too: a run whose terminal closed said interrupted and not by what.
  const stoppedBy = stopSignalOf(signal.reason);
  return { interrupted: true, ...(stoppedBy ? { stoppedBy } : {}) };
}
