import { z } from 'zod';
import { attributesOf } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';
import { TimedQueue } from './timed-queue.js';
import { newLossCounters, SegmentLoss, type LossPath } from '../link/loss-model.js';

/** toxiproxy's float fields: any number, clamped to [0, 1] where it is used, as its Pipe does. */
const probability = (def: number, what: string) =>
  z.number({ error: 'a number (clamped to 0..1, as toxiproxy does)' }).default(def).describe(what);

const ATTRS = attributesOf({
  loss_rate: probability(0.1, 'Probability that a segment is lost (toxiproxy: a chunk), clamped to 0..1.'),
  correlation: probability(0, 'Added to the loss probability after a loss (a burst), clamped to 0..1.'),
});
export type PacketLossAttrs = z.output<typeof ATTRS>;

const clamp01 = (x: number): number => (x < 0 ? 0 : x > 1 ? 1 : x);
/** The MSS of the link model's default (loss-model.ts): toxiproxy has none, it drops whole chunks. */
const MSS_BYTES = 1448;

/**
 * toxiproxy's `packet_loss` (its PR #739), with the link's loss model instead of deleting chunks:
 * a lost segment arrives when a Linux sender would resend it, and nothing is dropped, so RESP
 * stays in step (docs/toxiproxy.md says why). toxiproxy's chain is P(loss) = loss_rate, and
 * min(1, loss_rate + correlation) after a loss; here it is the same chain over segments, and a
 * resend is lost at loss_rate (toxiproxy never resends; correlation 1 would lose it forever). The toxic
 * does not see the link's RTT: its sender's SRTT is 0, so an RTO is the 200 ms floor.
 */
export const packetLossToxic: ByteToxicDefinition<PacketLossAttrs> = {
  kind: 'byte',
  type: 'packet_loss',
  attributes: ATTRS,
  // What the chain runs with, so `applied` shows it: a loss_rate or correlation above 1 is 1.
  applied: (a) => ({ ...a, loss_rate: clamp01(a.loss_rate), correlation: clamp01(a.correlation) }),
  create: ({ scheduler, next, uniform, attrs }) => {
    const q = new TimedQueue(scheduler, next);
    const path: LossPath = { rate: 0, rateAfterLoss: 0, resendRate: 0, mssBytes: MSS_BYTES, srttNs: 0, rttvarNs: 0, uniform, counters: newLossCounters() };
    const loss = new SegmentLoss(path);
    return {
      push(chunk, nowNs) {
        const a = attrs();
        const rate = clamp01(a.loss_rate);
        path.rate = rate;
        path.rateAfterLoss = Math.min(1, rate + clamp01(a.correlation));
        path.resendRate = rate;
        if (rate === 0 || (loss.plan(chunk.length) === 1 && loss.pieceExtraNs[0] === 0)) {
          q.push(chunk, Math.max(nowNs, q.lastDueNs), nowNs);
          return;
        }
        const pieces = loss.pieceEnd.length;
        let start = 0;
        for (let i = 0; i < pieces; i++) {
          const end = loss.pieceEnd[i]!;
          q.push(pieces === 1 ? chunk : chunk.subarray(start, end), Math.max(nowNs + loss.pieceExtraNs[i]!, q.lastDueNs), nowNs);
          start = end;
        }
      },
      end: (kind, nowNs) => q.push(kind, Math.max(nowNs, q.lastDueNs), nowNs),
      drain: (nowNs) => q.drain(nowNs),
      destroy: () => q.destroy(),
      get pendingBytes() {
        return q.pendingBytes;
      },
    };
  },
};
