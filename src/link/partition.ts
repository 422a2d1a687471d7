/**
 * A partition that heals: for a while neither direction delivers anything, and after it the bytes
 * held go when the TCP sender would resend them, not at the heal. A sender that lost a segment
 * retries with a tail-loss probe at the RTO, then on the RTO, doubling the wait each time (rto.ts);
 * the first retry at or after the heal is what carries the segment through, and everything behind
 * it on that connection follows it (in-order delivery). After a 10 s partition from a 200 ms RTO
 * that is 12.8 s after the loss.
 * Not toxiproxy's `enabled: false`, which closes every connection (a crash, not a partition).
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { durationUsSchema } from '../units.js';
import { isJsonObject, parseWith } from '../validation/schema.js';
import { firstResendAfterNs, firstRetransmitAfterNs, giveUpAfterNs, synGiveUpAfterNs, TCP_SYN_RETRIES, TCP_TIMEOUT_INIT_NS } from './rto.js';

/** What happens at the end: the link heals (held bytes go at the next retry), or every connection that lost bytes is reset. */
export type PartitionEnd = 'heal' | 'reset';

/** The keys that start a partition, in PUT /link and in a schedule step (the one definition). */
export const PARTITION_FIELDS = {
  partition: durationUsSchema(true).describe('Hold both directions for this long ("10s"), then heal as TCP does (docs/partitions.md).').optional(),
  then: z
    .enum(['heal', 'reset'], { error: 'heal | reset' })
    .describe('At the end: heal (held bytes go at the next retransmission), or reset the connections that lost bytes (the retry limit).')
    .optional(),
};

/** How long Linux retransmits before it gives a connection up: a partition longer than this resets the connections that lost bytes, healing or not. */
export const GIVE_UP_NS = giveUpAfterNs();

/** A partition asked for: how long, and what its end does. */
export interface PartitionRequest {
  durationUs: number;
  then: PartitionEnd;
  /**
   * When it starts, on the proxy's clock: a schedule's step time, so that a step that fired late
   * still ends when the schedule says. Undefined: now (PUT /link, setLink, the start's link).
   */
  startNs?: number;
}

/** The partition a link change asks for (its `partition` and `then` keys), if any; ConfigError naming the key. */
export function partitionRequestOf(change: { partition?: unknown; then?: unknown }): PartitionRequest | undefined {
  // Not an object (setLink(null) from JavaScript): none asked for; the link's schema then refuses it, naming `link`.
  if (!isJsonObject(change)) return undefined;
  const p = parseWith(z.object(PARTITION_FIELDS), { partition: change.partition, then: change.then });
  if (p.partition === undefined) {
    if (p.then !== undefined) throw new ConfigError('then', p.then, 'then only with partition');
    return undefined;
  }
  return { durationUs: p.partition, then: p.then ?? 'heal' };
}

export interface PartitionWindow {
  startNs: number;
  endNs: number;
  then: PartitionEnd;
}

/**
 * One direction of one connection through a partition: which of its chunks the partition took,
 * and when they arrive. A chunk is lost when it would still be on the wire at the cut (due at or
 * after the start) and was sent before the heal. Its sender's first retry at or after the heal is
 * the resend; it arrives one trip later.
 */
export class PartitionFlight {
  /** The send of the first lost chunk (the RTO timer runs from it), and when it is resent. */
  private firstLossNs: number | undefined;
  private resendNs: number | undefined;

  constructor(
    readonly window: PartitionWindow,
    /** The sender's RTO when it first lost a chunk (rtoNs of the link). */
    private readonly rtoNs: number,
  ) {}

  /** True once the partition took a chunk of this direction. */
  get lost(): boolean {
    return this.resendNs !== undefined;
  }

  /**
   * True when, at `sentNs`, nothing can be lost any more and the resend (if any) went: the caller
   * can drop the flight. Kept until then, so the end of the partition still finds what it took.
   */
  settledAt(sentNs: number): boolean {
    return sentNs >= this.window.endNs && (this.resendNs === undefined || sentNs >= this.resendNs);
  }

  /**
   * The due time of a chunk that was due at `dueNs`, sent at `sentNs`. A lost one arrives one trip
   * (its own due - send) after the resend; later ones may come out earlier, and the caller's
   * clamp (no chunk before the one ahead of it) keeps them behind it, as TCP's in-order delivery does.
   */
  dueNs(dueNs: number, sentNs: number): number {
    const w = this.window;
    if (dueNs < w.startNs || sentNs >= w.endNs) return dueNs;
    if (this.resendNs === undefined) {
      this.firstLossNs = sentNs;
      this.resendNs = sentNs + firstResendAfterNs(this.rtoNs, w.endNs - sentNs).atNs;
    }
    return this.resendNs + (dueNs - sentNs);
  }

  /**
   * This partition starts while `before`'s resend is still to come (it healed, its sender's next try
   * has not left): that try is the one this partition meets, not a send at the cut. When it leaves
   * in this partition it is lost too, and the sender goes on with its own backoff from its first loss
   * (retries 1, 2, 4 ... RTOs from it), which this flight then carries. Returns how much later the
   * bytes `before` held arrive now (0 when its try leaves after this heal), or undefined when
   * `before` holds nothing at the cut.
   */
  carryHeld(before: PartitionFlight | undefined): number | undefined {
    const w = this.window;
    const firstLossNs = before?.firstLossNs;
    const resendNs = before?.resendNs;
    if (before === undefined || firstLossNs === undefined || resendNs === undefined || resendNs < w.startNs) return undefined;
    if (resendNs >= w.endNs) return 0;
    this.firstLossNs = firstLossNs;
    this.resendNs = firstLossNs + firstResendAfterNs(before.rtoNs, w.endNs - firstLossNs).atNs;
    return this.resendNs - resendNs;
  }

  /**
   * True when the sender gives up (tcp_retries2) before the try that would carry its bytes after the
   * heal: the connection is reset then. Not only in a partition longer than that: one that heals at
   * 900 s has its next try 926 s after the loss (201 ms RTO), past the give-up.
   */
  gaveUp(): boolean {
    return this.firstLossNs !== undefined && this.resendNs! - this.firstLossNs > GIVE_UP_NS;
  }

  /** When the sender gives up, if it does before its resend (tcp_retries2, 924.6 s from the first loss); else undefined. */
  get giveUpAtNs(): number | undefined {
    return this.gaveUp() ? this.firstLossNs! + GIVE_UP_NS : undefined;
  }
}

/**
 * When a connection accepted during a partition may send its first byte: its SYN was lost, and the
 * client's kernel resends it 1 s, 2 s, 4 s ... after the one before (TCP_TIMEOUT_INIT doubling; no
 * probe, unlike data); the handshake completes at the first retry at or after the heal. The proxy adds
 * the handshake's round trip on top, as for any new connection.
 */
export function synHealNs(acceptedNs: number, window: PartitionWindow): number {
  if (acceptedNs >= window.endNs) return acceptedNs;
  return acceptedNs + firstRetransmitAfterNs(TCP_TIMEOUT_INIT_NS, window.endNs - acceptedNs).atNs;
}

/**
 * When a connection accepted during a partition is reset because its client's kernel ran out of SYN
 * retries before the heal (tcp_syn_retries, 6: the last at 63 s, connect() failing at 127 s with
 * ETIMEDOUT), or undefined when a retry gets through. Held until synHealNs instead, a client that
 * connected early in a 10 min partition waited 17 min for a retry Linux never sends.
 */
export function synGiveUpNs(acceptedNs: number, window: PartitionWindow): number | undefined {
  if (acceptedNs >= window.endNs) return undefined;
  const { n } = firstRetransmitAfterNs(TCP_TIMEOUT_INIT_NS, window.endNs - acceptedNs);
  return n > TCP_SYN_RETRIES ? acceptedNs + synGiveUpAfterNs() : undefined;
}
