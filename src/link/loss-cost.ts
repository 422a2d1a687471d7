/**
 * What the loss model (loss-model.ts) predicts one round trip costs: a request of one segment up
 * and a reply of one segment down, each lost by the chain. A segment lost k times in a row arrives
 * rto x 2^(k-1) late (the probe at the RTO, then the RTO again, then doubling, each wait capped at
 * TCP_RTO_MAX: rto.ts); the two directions add up. As the model (loss-model.ts), the 15th resend
 * (tcp_retries2) gets through whatever the rate. Pure: what `analyze --loss` projects and what
 * docs/method.md quotes.
 */
import { retransmitAtNs, rtoNs, TCP_RETRIES2 } from './rto.js';

export interface LossCostInput {
  rttUs: number;
  lossUp: number;
  lossDown: number;
  /** RTTVAR, microseconds (0 without jitter). */
  rttvarUs?: number;
}

export interface LossCost {
  /** Mean extra time per round trip, microseconds. */
  meanUs: number;
  /** Round-trip time (RTT plus extra) at these quantiles, microseconds. */
  p50Us: number;
  p99Us: number;
  p999Us: number;
  /** Share of round trips that pay at least one resend. */
  slowShare: number;
}

/** Extra delay of one direction: values (us) and their probabilities, 0 first. */
function directionCost(rate: number, rtoUs: number): { us: number; p: number }[] {
  if (rate <= 0) return [{ us: 0, p: 1 }];
  // A round trip's first send is lost at the long-run rate whatever the burst length (the chain's
  // stationary share), and each resend at the same rate on its own.
  const again = rate;
  const out = [{ us: 0, p: 1 - rate }];
  // p: the chance the k-th resend is sent (every try before it lost).
  let p = rate;
  for (let k = 1; k <= TCP_RETRIES2 && p > 1e-15; k++) {
    // The probe at the RTO, then the backed-off waits (the 11th and later at 120 s, not 2^(k-1) RTOs).
    const us = rtoUs + retransmitAtNs(rtoUs * 1000, k - 1) / 1000;
    // The last resend carries all that is left: without it the mass of a high rate went missing (at 99.9999%
    // the mean read 0 with every round trip resent).
    out.push({ us, p: k === TCP_RETRIES2 ? p : p * (1 - again) });
    p *= again;
  }
  return out;
}

export function roundTripLossCost(i: LossCostInput): LossCost {
  const rtoUs = rtoNs(i.rttUs * 1000, (i.rttvarUs ?? 0) * 1000) / 1000;
  const up = directionCost(i.lossUp, rtoUs);
  const down = directionCost(i.lossDown, rtoUs);
  const joint: { us: number; p: number }[] = [];
  for (const a of up) for (const b of down) joint.push({ us: a.us + b.us, p: a.p * b.p });
  joint.sort((x, y) => x.us - y.us);
  const at = (q: number): number => {
    let cum = 0;
    for (const j of joint) {
      cum += j.p;
      if (cum >= q - 1e-12) return i.rttUs + j.us;
    }
    return i.rttUs + joint[joint.length - 1]!.us;
  };
  return {
    meanUs: joint.reduce((s, j) => s + j.us * j.p, 0),
    p50Us: at(0.5),
    p99Us: at(0.99),
    p999Us: at(0.999),
    slowShare: 1 - joint[0]!.p,
  };
}
