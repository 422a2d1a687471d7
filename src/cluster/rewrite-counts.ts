import { REWRITE_KINDS, type RewriteKind } from './types.js';

/**
 * What the rewrite stages report, summed over every node: replies rewritten by kind, and topology
 * replies that could not be parsed. An unparsed kind is logged the first time only (it would
 * repeat on every refresh); /stats keeps counting.
 */
export class RewriteCounts {
  private readonly byKind = Object.fromEntries(REWRITE_KINDS.map((k) => [k, 0])) as Record<RewriteKind, number>;
  private unparsed = 0;
  private readonly loggedUnparsed = new Set<RewriteKind>();

  constructor(private readonly log: (line: string) => void) {}

  rewritten(kind: RewriteKind): void {
    this.byKind[kind]++;
  }

  unparsedReply(kind: RewriteKind, why: string): void {
    this.unparsed++;
    if (this.loggedUnparsed.has(kind)) return;
    this.loggedUnparsed.add(kind);
    this.log(`a ${kind} reply could not be parsed and went out unchanged (${why}); counted in /stats cluster.unparsedTopology, logged once`);
  }

  /** For /stats: copies, not the live counts. */
  snapshot(): { rewrites: Record<RewriteKind, number>; unparsedTopology: number } {
    return { rewrites: { ...this.byKind }, unparsedTopology: this.unparsed };
  }

  reset(): void {
    for (const k of REWRITE_KINDS) this.byKind[k] = 0;
    this.unparsed = 0;
  }
}
