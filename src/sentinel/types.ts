/** What sentinel mode's rewriters need to know, and what they report. */
import type { RewriteBuffer } from '../cluster/rewrite-common.js';
import type { RealAddress, RewriteContext } from '../cluster/types.js';

/** Where listeners are found: data nodes and sentinels are looked up apart (a new one is opened as what it is). */
export interface SentinelRewriteContext {
  readonly nodes: RewriteContext;
  readonly sentinels: RewriteContext;
}

/** One rewrite in progress: a buffer per kind of address. */
export interface SentinelBuffers {
  readonly nodes: RewriteBuffer;
  readonly sentinels: RewriteBuffer;
}

/** Which reply a rewrite was in: /stats counts rewrites by these. */
export type SentinelRewriteKind = 'primary-address' | 'masters' | 'replicas' | 'sentinels' | 'event';
export const SENTINEL_REWRITE_KINDS: readonly SentinelRewriteKind[] = ['primary-address', 'masters', 'replicas', 'sentinels', 'event'];

export interface SentinelRewriteResult {
  /** The bytes to deliver: the input Buffer itself when nothing changed. */
  readonly bytes: Buffer;
  /** Set when a listener address went in. */
  readonly kind: SentinelRewriteKind | undefined;
  /** Real addresses with no listener yet; when not empty, `bytes` is the input: open them, then rewrite again. */
  readonly missing: { readonly nodes: readonly RealAddress[]; readonly sentinels: readonly RealAddress[] };
  /** The primary a GET-MASTER-ADDR-BY-NAME or MASTER reply named (its real address), for the disagreement check. */
  readonly primary?: RealAddress & { readonly name: string };
  /** Set when a SENTINEL reply had a shape the rewriter does not know; `bytes` is then the input. */
  readonly unparsed?: string;
}
