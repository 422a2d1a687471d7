import { nodeKey } from '../cluster/topology.js';
import type { RealAddress } from '../cluster/types.js';
import { formatEndpoint } from '../endpoint.js';
import type { SentinelBlock } from '../stats/types.js';

/** /stats `sentinel`: what each sentinel last said the primary is, and whether they agree. */
export type PrimaryAnswersView = Pick<SentinelBlock, 'answers' | 'disagree' | 'disagreements'>;

/**
 * The primary each sentinel last named, from the proxy's own readings and from the replies clients
 * got. Sentinels disagree for a moment in every failover (each learns the new primary on its own)
 * and for longer in a partition; the proxy rewrites each answer as given and only reports it.
 */
export class PrimaryAnswers {
  private readonly bySentinel = new Map<string, string>();
  /** Each key as the log line shows it: `[::1]:26379`, as --sentinel takes it, not the bare key `::1:26379`. */
  private readonly shown = new Map<string, string>();
  private disagreements = 0;
  private logged = '';

  constructor(
    private readonly master: string,
    private readonly log: (line: string) => void,
  ) {}

  /** What one sentinel just told a client. */
  record(sentinel: RealAddress, primary: RealAddress): void {
    this.bySentinel.set(this.key(sentinel), this.key(primary));
    this.check();
  }

  /**
   * The refresh's reading of every sentinel, taken whole and then checked once; `primary` undefined for
   * one that did not answer (its last answer no longer counts). Taken one sentinel at a time, a reading in
   * which every sentinel had moved to the new primary was logged and counted as a disagreement per
   * sentinel but the last (two at every failover with three sentinels), though /stats never showed one.
   */
  recordReading(answers: readonly { sentinel: RealAddress; primary: RealAddress | undefined }[]): void {
    for (const { sentinel, primary } of answers) {
      if (primary) this.bySentinel.set(this.key(sentinel), this.key(primary));
      else this.bySentinel.delete(nodeKey(sentinel.host, sentinel.port));
    }
    this.check();
  }

  private check(): void {
    if (new Set(this.bySentinel.values()).size <= 1) {
      this.logged = '';
      return;
    }
    const text = [...this.bySentinel].map(([s, p]) => `${this.shown.get(s)} says ${this.shown.get(p)}`).join(', ');
    if (text === this.logged) return;
    this.logged = text;
    this.disagreements++;
    this.log(`sentinels disagree on the primary of ${this.master}: ${text}; each answer goes to clients rewritten as given`);
  }

  private key(a: RealAddress): string {
    const key = nodeKey(a.host, a.port);
    if (!this.shown.has(key)) this.shown.set(key, formatEndpoint({ kind: 'tcp', ...a }));
    return key;
  }

  snapshot(): PrimaryAnswersView {
    const answers = [...this.bySentinel].map(([sentinel, primary]) => ({ sentinel, primary }));
    return { answers, disagree: new Set(this.bySentinel.values()).size > 1, disagreements: this.disagreements };
  }

  reset(): void {
    this.disagreements = 0;
  }
}
