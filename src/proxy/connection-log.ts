import type { Clock } from '../clock.js';

/** Lines of one kind are written at most once per this; what it leaves out is counted in one line after. */
const LINE_INTERVAL_MS = 1000;
/** Kinds remembered at once; past this the oldest are forgotten (an error text may carry an address). */
const MAX_KINDS = 256;

/**
 * The per-connection log lines (`conn 17: client ECONNRESET`), each kind at most once a second: a
 * thousand clients that reset at once would otherwise write a thousand lines to stderr. The kind is
 * the line without its connection number. What a second left out is written once it is over, as
 * one line per kind (`999 more connections: client ECONNRESET`), and at close().
 */
export class ConnectionLog {
  private readonly kinds = new Map<string, { loggedNs: number; skipped: number }>();
  private summaryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
  ) {}

  /** The log function a connection takes: its lines pass through the once-a-second rule. */
  readonly line = (text: string): void => {
    const kind = text.replace(/^conn \d+: /, '');
    const nowNs = this.clock.nowNs();
    const seen = this.kinds.get(kind);
    if (seen && nowNs - seen.loggedNs < LINE_INTERVAL_MS * 1e6) {
      seen.skipped++;
      this.summaryTimer ??= setTimeout(() => this.writeSkipped(), LINE_INTERVAL_MS).unref();
      return;
    }
    if (seen) this.kinds.delete(kind);
    else if (this.kinds.size >= MAX_KINDS) this.kinds.delete(this.kinds.keys().next().value as string);
    if (seen && seen.skipped > 0) this.log(skippedLine(seen.skipped, kind));
    this.kinds.set(kind, { loggedNs: nowNs, skipped: 0 });
    this.log(text);
  };

  /** Writes what is still left out; the proxy calls it as it closes. */
  close(): void {
    this.writeSkipped();
  }

  private writeSkipped(): void {
    clearTimeout(this.summaryTimer);
    this.summaryTimer = undefined;
    for (const [kind, k] of this.kinds) {
      if (k.skipped === 0) continue;
      this.log(skippedLine(k.skipped, kind));
      k.skipped = 0;
    }
  }
}

function skippedLine(skipped: number, kind: string): string {
  return `${skipped} more ${skipped === 1 ? 'connection' : 'connections'}: ${kind}`;
}
