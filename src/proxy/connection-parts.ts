import { PartitionFlight, type PartitionWindow } from '../link/partition.js';
import { FRAME_CHAIN_NAME } from '../stage/frame-chain.js';
import type { StageFactory } from '../stage/types.js';
import type { Backpressure } from './backpressure.js';
import type { CloseRules } from './close-rules.js';
import type { DirectionPath } from './direction-path.js';
import type { Framing } from './framing.js';

/**
 * What a connection owns while it is open: its two paths, the framing, the high-water rule and the
 * close rules, and what is done to them as a whole (stages in and out, a partition, the bytes they
 * hold). The connection lets go of them at its last close (connection.ts, `parts`).
 */
export class ConnectionParts {
  constructor(
    readonly up: DirectionPath,
    readonly down: DirectionPath,
    readonly framing: Framing,
    readonly pressure: Backpressure,
    readonly closeRules: CloseRules,
  ) {}

  /** See `ProxiedConnection.addStage`. */
  addStage(stage: StageFactory, indexInChain: number): boolean {
    if (stage.kind === 'byte') {
      // Among the byte stages: the link, TLS and the frame chain's request side keep their places.
      const path = stage.direction === 'up' ? this.up : this.down;
      path.chain.add(stage, path.stageAt(indexInChain));
      return true;
    }
    return this.framing.add(stage, indexInChain, false);
  }

  removeStage(stage: StageFactory, nowNs: number): void {
    if (stage.kind === 'frame') return this.framing.remove(stage.name);
    const chain = stage.direction === 'up' ? this.up.chain : this.down.chain;
    chain.remove(stage.name, nowNs);
    this.pressure.relieve();
  }

  /** Stage names per chain (the link and client TLS included). */
  stageNames(): { up: string[]; down: string[]; frame: string[] } {
    return { up: this.up.chain.names.filter((n) => n !== FRAME_CHAIN_NAME), down: this.down.chain.names, frame: this.framing.stages.map((s) => s.name) };
  }

  /** Both directions hold what the partition takes until their sender's resend (partition.ts). */
  partition(window: PartitionWindow, rtoNs: number): void {
    this.up.link.partition(new PartitionFlight(window, rtoNs));
    this.down.link.partition(new PartitionFlight(window, rtoNs));
  }

  /** Bytes the stages of one direction hold (frame chain included), not the socket's. */
  pending(d: 'up' | 'down'): number {
    if (d === 'up') return this.up.chain.pendingBytes;
    return this.down.chain.pendingBytes + this.framing.downPendingBytes;
  }
}
