/**
 * The link as the first byte stage of a direction: the delay line (delay, jitter, handshake) and
 * the bandwidth cap. Not removable; the proxy puts one at the head of each direction's chain.
 *
 * A delay line itself rather than a stage holding one: a chunk goes from the chain straight into
 * the line, and due chunks from the line straight to the next stage, with no wrapper or callback
 * between them (each is one more object a chunk touches: docs/precision.md, "Fewer objects per chunk").
 */
import type { BatchSink } from '../stage/byte-chain.js';
import type { ByteStage, EndKind } from '../stage/types.js';
import { DelayLine, type DelayLineOptions } from './delay-line.js';

export const LINK_STAGE_NAME = 'link';

/** The options' callbacks, never called: the stage's handOut and endOut go to the next stage. */
const UNUSED = (): void => {};

export class LinkStage extends DelayLine implements ByteStage {
  constructor(
    options: Omit<DelayLineOptions, 'deliver' | 'onEnd'>,
    private readonly next: BatchSink,
  ) {
    super({ ...options, deliver: UNUSED, onEnd: UNUSED });
  }

  protected override handOut(chunks: Buffer[], _endOffset: number, nowNs: number): void {
    const next = this.next;
    if (chunks.length === 1) next.push(chunks[0]!, nowNs);
    else if (next.pushMany !== undefined) next.pushMany(chunks, nowNs);
    else for (let i = 0; i < chunks.length; i++) next.push(chunks[i]!, nowNs);
  }

  protected override endOut(kind: EndKind, nowNs: number): void {
    this.next.end(kind, nowNs);
  }

  drain(): void {
    // The link is never removed.
  }
}
