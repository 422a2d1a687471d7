/**
 * The link as the first byte stage of a direction: the delay line (delay, jitter, handshake) and
 * the bandwidth cap. Not removable; the proxy puts one at the head of each direction's chain.
 */
import type { BatchSink } from '../stage/byte-chain.js';
import type { ByteStage, EndKind } from '../stage/types.js';
import { DelayLine, type DelayLineOptions } from './delay-line.js';

export const LINK_STAGE_NAME = 'link';

export class LinkStage implements ByteStage {
  readonly line: DelayLine;
  /**
   * Set while the link is its chain's only stage: due bytes go straight to this sink (the socket)
   * instead of through the chain's relay, the proxy's fast path.
   */
  direct: BatchSink | undefined;

  constructor(options: Omit<DelayLineOptions, 'deliver' | 'onEnd'>, next: BatchSink) {
    this.line = new DelayLine({
      ...options,
      deliver: (chunks, _endOffset, nowNs) => {
        const to = this.direct ?? next;
        if (chunks.length === 1) to.push(chunks[0]!, nowNs);
        else if (to.pushMany !== undefined) to.pushMany(chunks, nowNs);
        else for (let i = 0; i < chunks.length; i++) to.push(chunks[i]!, nowNs);
      },
      onEnd: (kind, nowNs) => (this.direct ?? next).end(kind, nowNs),
    });
  }

  get pendingBytes(): number {
    return this.line.pendingBytes;
  }

  /** Chunks (and end marker) waiting. */
  get queued(): number {
    return this.line.queued;
  }

  push(chunk: Buffer, nowNs: number): void {
    this.line.push(chunk, nowNs);
  }

  end(kind: EndKind, nowNs: number): void {
    this.line.end(kind, nowNs);
  }

  drain(): void {
    // The link is never removed.
  }

  destroy(): void {
    this.line.destroy();
  }
}
