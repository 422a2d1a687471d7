let requested = false;

/**
 * Whether the run under way was asked to stop. A failure after that is the stop's own doing, not a
 * fault to report with a stack trace: a Ctrl-C reaches our whole process group, and a child forked
 * in that instant (a private redis-server, a link's proxy) is still in it until it execs, so it dies
 * of the same signal and its start-up fails.
 */
export function stopRequested(): boolean {
  return requested;
}

/**
 * The one Ctrl-C handling of a run that reports what finished (bench, demo, calibrate). Once: abort
 * the run at its next stopping point (a bench's next wait, calibrate's next block of PINGs) and let
 * it return what finished; the caller prints it and exits 130. Twice: leave now (the 'exit' handler
 * still kills a private redis-server).
 */
export function abortOnSigint(onFirst: () => void): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  requested = false;
  const handler = (): void => {
    if (controller.signal.aborted) {
      process.exit(130);
    }
    requested = true;
    onFirst();
    controller.abort();
  };
  process.on('SIGINT', handler);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', handler) };
}

/** What a cluster bench says on the first Ctrl-C: its stopping point is the end of a sample. */
export const STOPPING_AFTER_SAMPLE = 'redis-rtt: stopping after the sample in flight (Ctrl-C again to quit at once)\n';
