import { encodeLike, type RespNode, type Splice } from '../resp/reply-tree.js';
import type { ListenAddress, RealAddress, RewriteContext } from './types.js';

/**
 * One rewrite in progress: the splices it will apply and the real addresses it found no listener
 * for. The rewriters call `address()` for every node address they meet and `replace()` for every
 * leaf they change.
 */
export class RewriteBuffer {
  readonly splices: Splice[] = [];
  readonly missing: RealAddress[] = [];
  /** Each leaf's new bytes by type and text: a reply names the same listeners over and over. */
  private readonly encoded = new Map<string, Buffer>();

  constructor(readonly ctx: RewriteContext) {}

  /**
   * The listener for a real address (an empty host is this connection's node host); undefined when
   * it must be opened first, or when the address is none: port 0 is a node with no address (`:0@0`
   * in CLUSTER NODES, flagged noaddr; `MOVED 0 :0` and an empty endpoint with port 0 in CLUSTER
   * SLOTS while it still owns slots). It passes as Redis wrote it, as `?` does: a listener was
   * opened that dialed port 0 (or, with --listen-ports full, /stats withoutListener listed `:0`).
   */
  address(host: string, port: number): ListenAddress | undefined {
    if (port === 0) return undefined;
    const real = host === '' ? this.ctx.selfHost : host;
    const found = this.ctx.listenerFor(real, port);
    if (!found && !this.missing.some((m) => m.host === real && m.port === port)) this.missing.push({ host: real, port });
    return found;
  }

  /** Replaces a leaf with `text`, in the leaf's own type (a bulk stays bulk, an integer stays integer). */
  replace(node: RespNode, text: string): void {
    if (node.text === text) return;
    const key = `${node.type}${node.format ?? ''}${text}`;
    let bytes = this.encoded.get(key);
    if (!bytes) this.encoded.set(key, (bytes = encodeLike(node, text)));
    this.splices.push({ start: node.valueStart, end: node.end, bytes });
  }

  /** Replaces a raw byte span (inside a text line or a bulk: the caller re-encodes the leaf). */
  replaceSpan(start: number, end: number, bytes: Buffer): void {
    this.splices.push({ start, end, bytes });
  }
}

/** Splits "host:port" at the last colon (IPv6 hosts are written bare); undefined when the port is not a number. */
export function splitHostPort(text: string): RealAddress | undefined {
  const colon = text.lastIndexOf(':');
  if (colon < 0) return undefined;
  const portText = text.slice(colon + 1);
  if (!/^\d{1,5}$/.test(portText)) return undefined;
  return { host: text.slice(0, colon), port: Number(portText) };
}
