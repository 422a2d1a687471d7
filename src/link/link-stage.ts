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

  constructor(options: Omit<DelayLineOptions, 'deliver' | 'onEnd'>, next: BatchSink) {
    this.line = new DelayLine({
      ...options,
      deliver: (chunks, _endOffset, nowNs) => {
        if (chunks.length === 1) next.push(chunks[0]!, nowNs);
        else if (next.pushMany !== undefined) next.pushMany(chunks, nowNs);
        else for (let i = 0; i < chunks.length; i++) next.push(chunks[i]!, nowNs);
      },
      onEnd: (kind, nowNs) => next.end(kind, nowNs),
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
