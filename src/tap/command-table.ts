/**
 * Per-command counts and latency histograms, shared by every connection of a stats collector: taps record
 * straight into it, so "merged across connections" costs nothing at snapshot time and memory does
 * not grow with the number of connections.
 */
import { LatencyHistogram } from '../numbers/histogram.js';
import type { CommandStats } from './counter-types.js';

/** Names past the cap are counted together under this one. */
export const OTHER_COMMAND = 'OTHER';
/** @default cap on distinct command names (clients can send any bytes as a name). */
export const DEFAULT_MAX_COMMAND_NAMES = 1000;

export class CommandEntry {
  count = 0;
  errors = 0;
  /** Request's last byte written to Redis -> reply's first byte back. */
  readonly serverUs = new LatencyHistogram();
  /** Request's last byte at the proxy -> reply's last byte written to the client. */
  readonly clientUs = new LatencyHistogram();

  constructor(
    readonly name: string,
    /** Holds blocking commands only: their latency is the wait, never mixed with normal ones. */
    readonly blocking: boolean,
  ) {}

  /** Records one answered request's two latencies, from nanosecond stamps. */
  recordLatency(serverNs: number, clientNs: number): void {
    this.serverUs.record(serverNs / 1000);
    this.clientUs.record(clientNs / 1000);
  }

  reset(): void {
    this.count = 0;
    this.errors = 0;
    this.serverUs.reset();
    this.clientUs.reset();
  }

  stats(): CommandStats {
    const out: CommandStats = {
      count: this.count,
      errors: this.errors,
      serverUs: this.serverUs.summary(),
      clientUs: this.clientUs.summary(),
    };
    if (this.blocking) out.blocking = true;
    return out;
  }
}

export class CommandTable {
  private readonly entries = new Map<string, CommandEntry>();

  constructor(readonly maxNames: number = DEFAULT_MAX_COMMAND_NAMES) {}

  /**
   * The entry for `key`, created on first use. Once `maxNames` keys exist, new ones share the
   * OTHER entry (or "OTHER BLOCKING" for blocking ones, so the two never mix).
   */
  entry(key: string, blocking: boolean): CommandEntry {
    let e = this.entries.get(key);
    if (e !== undefined) return e;
    if (this.entries.size >= this.maxNames) {
      const other = blocking ? `${OTHER_COMMAND} BLOCKING` : OTHER_COMMAND;
      e = this.entries.get(other);
      if (e !== undefined) return e;
      key = other;
    }
    e = new CommandEntry(key, blocking);
    this.entries.set(key, e);
    return e;
  }

  /** Zeroes every entry but keeps them: requests in flight still point at their entry. */
  reset(): void {
    for (const e of this.entries.values()) e.reset();
  }

  /** Each entry's clientUs histogram, live: the dashboard reads these on its timer, never on the data path. */
  *clientLatency(): Generator<readonly [string, LatencyHistogram]> {
    for (const e of this.entries.values()) yield [e.name, e.clientUs];
  }

  /** Entries that saw anything, most frequent first. */
  snapshot(): Record<string, CommandStats> {
    const used = [...this.entries.values()].filter((e) => e.count > 0 || e.clientUs.count > 0);
    used.sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
    const out: Record<string, CommandStats> = {};
    for (const e of used) out[e.name] = e.stats();
    return out;
  }

  get size(): number {
    return this.entries.size;
  }
}
