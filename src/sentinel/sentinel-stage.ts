import type { RealAddress } from '../cluster/types.js';
import type { FrameStageFactory, ReplyAction, ReplyInfo } from '../stage/types.js';
import { rewriteSentinelEvent } from './rewrite-event.js';
import { rewriteSentinelReply, sentinelSubcommand } from './rewrite-reply.js';
import type { SentinelRewriteContext, SentinelRewriteKind, SentinelRewriteResult } from './types.js';

export interface SentinelStageOptions {
  ctx: SentinelRewriteContext;
  /** Opens listeners for these; resolves once they accept clients. */
  open(missing: SentinelRewriteResult['missing']): Promise<void>;
  onRewrite(kind: SentinelRewriteKind): void;
  /** A SENTINEL reply that could not be parsed: passed on unchanged. */
  onUnparsed(reason: string): void;
  onOpenFailed(missing: SentinelRewriteResult['missing'], err: unknown): void;
  /** What this sentinel just told a client the primary of `master` is (GET-MASTER-ADDR-BY-NAME, MASTER). */
  onPrimary(master: string, primary: RealAddress): void;
}

export const SENTINEL_STAGE_NAME = 'sentinel-rewrite';
const PASS: ReplyAction = { kind: 'pass' };

/**
 * The frame stage on a sentinel's connections: listener addresses into SENTINEL replies and into
 * the events a subscribed client receives. A reply naming an instance with no listener yet is held
 * (the chain holds everything behind it too) until the listener is open.
 */
export function sentinelStage(o: SentinelStageOptions): FrameStageFactory {
  return { kind: 'frame', name: SENTINEL_STAGE_NAME, create: () => ({ onReply: (reply) => onReply(o, reply) }) };
}

function onReply(o: SentinelStageOptions, reply: ReplyInfo): ReplyAction | Promise<ReplyAction> {
  if (reply.isPush) return rewrite(o, () => rewriteSentinelEvent(reply.bytes, o.ctx), true);
  const req = reply.request;
  const sub = req && sentinelSubcommand(req.name, req.args);
  if (sub === undefined) return PASS;
  const master = sub === 'GET-MASTER-ADDR-BY-NAME' || sub === 'MASTER' ? req!.args[1]?.toString('latin1') : undefined;
  return rewrite(o, () => rewriteSentinelReply(reply.bytes, sub, o.ctx), true, master);
}

function rewrite(o: SentinelStageOptions, run: () => SentinelRewriteResult, mayOpen: boolean, master?: string): ReplyAction | Promise<ReplyAction> {
  const r = run();
  if (r.unparsed) {
    o.onUnparsed(r.unparsed);
    return PASS;
  }
  if (r.missing.nodes.length + r.missing.sentinels.length > 0 && mayOpen) {
    // One that cannot get a listener keeps its real address; the reply still names every other's listener.
    return o.open(r.missing).then(
      () => rewrite(o, run, false, master),
      (err: unknown) => {
        o.onOpenFailed(r.missing, err);
        return rewrite(o, run, false, master);
      },
    );
  }
  if (master !== undefined && r.primary) o.onPrimary(master, r.primary);
  if (r.kind === undefined) return PASS;
  o.onRewrite(r.kind);
  return { kind: 'replace', reply: r.bytes };
}
