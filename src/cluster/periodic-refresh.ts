import { FailureLog } from './failure-log.js';

/** What keeps a proxy's node list current (cluster mode's CLUSTER NODES reads, sentinel mode's SENTINEL ones). */
export interface TopologySource {
  /** Reads now; one read at a time. */
  refresh(): Promise<void>;
  /** Stops reading and waits for a read in flight. */
  stop(): Promise<void>;
}

/**
 * A read every `periodMs` and whenever asked, one at a time: a refresh asked for while one runs
 * joins it, so a burst of rewrites that each want the topology re-read makes one read. A failed
 * read is logged (`what refresh failed: ...`) when it starts failing and when the failure's text
 * changes, not at every try; the next read tries again, and the first that works says so
 * (`what refresh works again`).
 */
export abstract class PeriodicRefresh implements TopologySource {
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly failure: FailureLog;

  constructor(
    private readonly periodMs: number,
    /** Names the read in the log line of a failure ("topology", "sentinel"). */
    private readonly what: string,
    logLine: (line: string) => void,
  ) {
    this.failure = new FailureLog(logLine);
  }

  /** The timer does not keep the process alive: a proxy's listeners do. */
  start(): void {
    this.timer = setInterval(() => void this.refresh(), this.periodMs);
    this.timer.unref();
  }

  refresh(): Promise<void> {
    return (this.running ??= this.read()
      .then(
        () => this.failure.cleared(`${this.what} refresh works again`),
        (err: unknown) => this.failure.failed(`${this.what} refresh failed: ${(err as Error).message}`),
      )
      .finally(() => (this.running = undefined)));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  protected abstract read(): Promise<void>;
}
