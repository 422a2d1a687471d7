import type { FrameStage, FrameStageFactory, ReplyAction, ReplyInfo } from '../stage/types.js';
import { rewriteReply, topologyKind } from './rewrite-reply.js';
import type { ListenAddress, RealAddress, RewriteContext, RewriteKind } from './types.js';

/** Where the rewrite stage finds listeners, and opens them for nodes it has not seen. */
export interface NodeDirectory {
  listenerFor(host: string, port: number): ListenAddress | undefined;
  /** Opens a listener for each address; resolves once they accept clients. */
  open(addresses: readonly RealAddress[]): Promise<void>;
}

export interface RewriteStageOptions {
  /** The real host of the node this proxy's connections go to (what an empty endpoint means). */
  selfHost: string;
  /** What the listeners and the upstream connections speak (RewriteContext). */
  listenTls?: boolean;
  upstreamTls?: boolean;
  directory: NodeDirectory;
  onRewrite(kind: RewriteKind): void;
  /** A topology reply that could not be parsed: passed on unchanged. */
  onUnparsed(kind: RewriteKind, reason: string): void;
  /** Listeners could not be opened for a node: the reply names that node by its real address (the others by their listeners). */
  onOpenFailed(addresses: readonly RealAddress[], err: unknown): void;
}

export const REWRITE_STAGE_NAME = 'cluster-rewrite';
const PASS: ReplyAction = { kind: 'pass' };

/** The frame stage that writes listener addresses into topology replies and redirects. */
export function rewriteStage(o: RewriteStageOptions): FrameStageFactory {
  return { kind: 'frame', name: REWRITE_STAGE_NAME, create: () => new RewriteStage(o) };
}

/**
 * One connection's rewriting. It keeps the topology kind of each command queued in MULTI, so an
 * EXEC result is rewritten element by element. A reply naming a node with no listener yet is held
 * (a promise: the chain holds everything behind it too) until the listener is open.
 */
class RewriteStage implements FrameStage {
  private queued: (RewriteKind | undefined)[] | undefined;
  private readonly ctx: RewriteContext;

  constructor(private readonly o: RewriteStageOptions) {
    this.ctx = { selfHost: o.selfHost, listenTls: o.listenTls, upstreamTls: o.upstreamTls, listenerFor: (h, p) => o.directory.listenerFor(h, p) };
  }

  onReply(reply: ReplyInfo): ReplyAction | Promise<ReplyAction> {
    if (reply.isPush) return PASS;
    const req = reply.request;
    let kind: RewriteKind | undefined;
    let exec: (RewriteKind | undefined)[] | undefined;
    if (req) {
      kind = topologyKind(req.name, req.args);
      // By name first: EXEC, DISCARD and RESET end the transaction whatever inMulti says of them.
      if (req.name === 'EXEC') [exec, this.queued] = [this.queued ?? [], undefined];
      else if (req.name === 'DISCARD' || req.name === 'RESET') this.queued = undefined;
      // A MULTI outside a transaction starts a new one, whatever was left of an old one whose EXEC
      // was never answered (CLIENT REPLY OFF): a stale entry shifts every EXEC element after it.
      else if (req.name === 'MULTI' && !req.inMulti) this.queued = [];
      else if (req.inMulti && this.queued !== undefined) {
        // +QUEUED: its topology reply comes in EXEC's array. An error (a nested MULTI, a WATCH in
        // MULTI) was not queued and has no element there.
        if (reply.bytes[0] !== 0x2d /* - */) this.queued.push(kind);
        kind = undefined;
      }
    }
    return this.rewrite(reply.bytes, kind, exec, true);
  }

  private rewrite(
    bytes: Buffer,
    kind: RewriteKind | undefined,
    exec: (RewriteKind | undefined)[] | undefined,
    mayOpen: boolean,
  ): ReplyAction | Promise<ReplyAction> {
    const r = rewriteReply(bytes, this.ctx, kind, exec);
    if (r.unparsed) {
      this.o.onUnparsed(r.unparsed.kind, r.unparsed.reason);
      return PASS;
    }
    if (r.missing.length > 0 && mayOpen) {
      // A node whose listener cannot open keeps its real address; the reply still names every
      // other node's listener (passing it unchanged would send clients to every node directly).
      return this.o.directory.open(r.missing).then(
        () => this.rewrite(bytes, kind, exec, false),
        (err: unknown) => {
          this.o.onOpenFailed(r.missing, err);
          return this.rewrite(bytes, kind, exec, false);
        },
      );
    }
    for (const k of r.kinds) this.o.onRewrite(k);
    return r.bytes === bytes ? PASS : { kind: 'replace', reply: r.bytes };
  }
}
