/**
 * The reply side's run: Redis's frames, matched and oldest first, through onReply of each frame stage
 * (a promise holds that frame and everything behind it), each then ready, as passed, replaced or
 * dropped, for the sequencer to hand on at its turn.
 *
 * A base class of ReplySequencer, as FrameFallBack is of FrameChain: push() runs the replies on the
 * sequencer itself, with no object, closure or call added between them. What it uses of the sequencer
 * is declared abstract below.
 */
import type { HeldBehind } from './held-behind.js';
import type { Slot, SlotMatch, SlotMatching } from './reply-slot.js';
import { runStages, type NamedFrameStage } from './run-stages.js';
import type { ReplyAction } from './types.js';

/** What the reply run uses of ReplySequencerOptions. */
export interface ReplyRunOptions {
  /** The frame stages, shared with the request side (changes show at once). */
  stages: NamedFrameStage[];
  /**
   * A replica's PSYNC or SYNC was answered and that answer handed on: what follows, both ways, is the
   * replication stream (the RDB, the master's writes, the replica's ACKs), no request or reply.
   */
  onReplication: () => void;
}

/** One of Redis's frames, matched: `bytes` go toward the client for it (null once dropped). */
export interface RedisItem {
  bytes: Buffer | null;
  frame: Buffer;
  slot: Slot | undefined;
  match: SlotMatch;
}

export abstract class ReplyRun {
  /** Framed and matched, not yet through the stages, oldest first. */
  protected readonly incoming: RedisItem[] = [];
  /** A stage's promise holds the oldest of `incoming`. */
  protected downWaiting = false;
  /** Through the stages, waiting for their turn toward the client. */
  protected readonly ready: RedisItem[] = [];

  protected abstract readonly o: ReplyRunOptions;
  protected abstract readonly matching: SlotMatching;
  protected abstract readonly heldBehind: HeldBehind;
  /** The requests whose replies have not all gone, in request order. */
  protected abstract readonly slots: Slot[];
  /** Bytes pending for the client (backpressure). */
  protected abstract downPendingBytes: number;
  protected abstract passThrough: boolean;
  abstract flush(): void;

  protected run(): void {
    while (!this.downWaiting && this.incoming.length > 0 && !this.passThrough) {
      const item = this.incoming[0]!;
      const info = { request: item.slot?.info, bytes: item.slot?.answer ?? item.frame, isPush: item.slot === undefined };
      const final = (a: ReplyAction): ReplyAction =>
        a.kind === 'drop' ? a : info.bytes !== item.frame ? { kind: 'replace', reply: info.bytes } : { kind: 'pass' };
      const decided = runStages<ReplyAction>(
        this.o.stages,
        (s) => s.onReply?.(info),
        (a) => a.kind !== 'drop',
        (a) => {
          this.downWaiting = false;
          this.applyReply(item, final(a));
          this.run();
        },
        (a) => {
          if (a.kind === 'replace') info.bytes = a.reply;
        },
      );
      if (decided === undefined) {
        this.downWaiting = true;
        this.heldBehind.holdStarted(this.slots, this.downPendingBytes);
        break;
      }
      this.applyReply(item, final(decided));
    }
    this.flush();
    // No stage may act on the replication stream: everything after PSYNC's answer passes unchanged.
    if (this.matching.replicating && !this.downWaiting && this.incoming.length === 0 && !this.passThrough) this.o.onReplication();
  }

  private applyReply(item: RedisItem, a: ReplyAction): void {
    if (this.incoming[0] !== item) return;
    this.incoming.shift();
    this.downPendingBytes -= item.bytes!.length;
    if (a.kind === 'drop') item.bytes = null;
    else if (a.kind === 'replace') {
      item.bytes = a.reply;
      item.match.frame = undefined; // bytes a stage made: the tap frames them itself
    }
    if (item.bytes) this.downPendingBytes += item.bytes.length;
    this.ready.push(item);
    this.flush();
  }
}
