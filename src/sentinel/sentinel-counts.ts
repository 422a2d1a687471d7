import { SENTINEL_REWRITE_KINDS, type SentinelRewriteKind } from './types.js';

/** Sentinel replies and events rewritten, by kind, over every sentinel's connections; unparsed replies logged once. */
export class SentinelCounts {
  private readonly byKind = Object.fromEntries(SENTINEL_REWRITE_KINDS.map((k) => [k, 0])) as Record<SentinelRewriteKind, number>;
  private unparsed = 0;
  private logged = false;

  constructor(private readonly log: (line: string) => void) {}

  rewritten(kind: SentinelRewriteKind): void {
    this.byKind[kind]++;
  }

  unparsedReply(why: string): void {
    this.unparsed++;
    if (this.logged) return;
    this.logged = true;
    this.log(`a Sentinel reply could not be parsed and went out unchanged (${why}); counted in /stats sentinel.unparsed, logged once`);
  }

  snapshot(): { rewrites: Record<SentinelRewriteKind, number>; unparsed: number } {
    return { rewrites: { ...this.byKind }, unparsed: this.unparsed };
  }

  reset(): void {
    for (const k of SENTINEL_REWRITE_KINDS) this.byKind[k] = 0;
    this.unparsed = 0;
  }
}
