/**
 * When a Linux TCP sender resends what the network lost: the retransmission timer (RTO), its
 * exponential backoff, the tail-loss probe (TLP), RACK's loss detection from later ACKs, and the
 * SYN's own backoff. Pure functions of the link's RTT figures, all in nanoseconds, so that the loss
 * model and a healing partition read the same numbers. Sources (docs/method.md has the detail):
 * include/net/tcp.h (the constants), net/ipv4/tcp_input.c (`__tcp_set_rto`, `tcp_rtt_estimator`),
 * net/ipv4/tcp_output.c (`tcp_schedule_loss_probe`), net/ipv4/tcp_recovery.c (RACK's reordering
 * window), net/ipv4/tcp_timer.c (`tcp_model_timeout`); RFC 6298 (RTO) and RFC 8985 (RACK-TLP).
 */

const MS = 1e6;
const S = 1e9;

/** Linux TCP_RTO_MIN (HZ/5): the floor of the RTO's variance term. */
export const TCP_RTO_MIN_NS = 200 * MS;
/** Linux TCP_RTO_MAX (120*HZ): no backoff goes beyond it. */
export const TCP_RTO_MAX_NS = 120 * S;
/** Linux TCP_TIMEOUT_INIT (1*HZ, RFC 6298 2.1): the RTO before any RTT sample; the SYN's first wait. */
export const TCP_TIMEOUT_INIT_NS = 1 * S;
/** Linux TCP_TIMEOUT_MIN (2 jiffies at HZ=1000): the TLP's slack when more than one segment is in flight. */
export const TCP_TIMEOUT_MIN_NS = 2 * MS;
/** Linux tcp_syn_retries default (TCP_SYN_RETRIES): SYNs resent before connect() fails. */
export const TCP_SYN_RETRIES = 6;
/** Linux tcp_retries2 default (TCP_RETR2): the retransmissions of data before the connection is dropped. */
export const TCP_RETRIES2 = 15;

/**
 * The RTO: SRTT + max(4 x RTTVAR, TCP_RTO_MIN), capped at TCP_RTO_MAX. Linux floors the variance
 * term (`tcp_rtt_estimator` keeps `mdev_max_us` >= tcp_rto_min, and `__tcp_set_rto` returns
 * srtt + rttvar), not the whole RTO as RFC 6298 2.4 does: at 85 ms RTT that is 285 ms, not 200.
 * `rttvarNs` is the mean deviation of the RTT (RFC 6298's RTTVAR, 0 on a link without jitter).
 */
export function rtoNs(srttNs: number, rttvarNs: number): number {
  return Math.min(srttNs + Math.max(4 * rttvarNs, TCP_RTO_MIN_NS), TCP_RTO_MAX_NS);
}

/** The wait before the n-th retransmission of the same segment (n = 1 is the first): the RTO doubled n-1 times, capped. */
export function backedOffRtoNs(baseRtoNs: number, n: number): number {
  return Math.min(baseRtoNs * 2 ** Math.max(0, n - 1), TCP_RTO_MAX_NS);
}

/** Time from the first send to the n-th retransmission when every try is lost: the sum of the backed-off waits. */
export function retransmitAtNs(baseRtoNs: number, n: number): number {
  let atNs = 0;
  for (let i = 1; i <= n; i++) atNs += backedOffRtoNs(baseRtoNs, i);
  return atNs;
}

/**
 * The first retry at or after `elapsedNs` from the first send when each wait is the one before it
 * doubled, as a SYN's are (TCP_TIMEOUT_INIT: 1, 3, 7 s after the first): its time from the send,
 * and its number. Data is resent on another timeline (firstResendAfterNs).
 */
export function firstRetransmitAfterNs(baseRtoNs: number, elapsedNs: number): { atNs: number; n: number } {
  let atNs = 0;
  let n = 0;
  while (atNs < elapsedNs) {
    n++;
    atNs += backedOffRtoNs(baseRtoNs, n);
  }
  return { atNs, n };
}

/**
 * The first resend of lost data at or after `elapsedNs` from its send (a partition that held it for
 * that long heals; the sender's next try is what carries it): its time from the send, and its
 * number. The first try is the tail-loss probe, which for a lone segment fires at the RTO (its
 * 2 x SRTT + 200 ms is later; tlpTimeoutNs) and rearms the RTO unbacked-off; the RTO's expiries
 * follow, doubling: RTO, 2, 4, 8 ... x RTO after the send (the loss model's resendUntilThrough),
 * not the 1, 3, 7 x RTO of a timer that backs off from its first expiry. After 10 s from a 200 ms
 * RTO: 12.8 s, the 7th. Measured on Linux 6.18 (a router namespace with a blackhole route both
 * ways, RTO 204 ms): resends 0.21, 0.42, 0.85, 1.68, 3.39, 6.80 s after the send, answered at 13.46 s.
 */
export function firstResendAfterNs(baseRtoNs: number, elapsedNs: number): { atNs: number; n: number } {
  let atNs = 0;
  let n = 0;
  while (atNs < elapsedNs) {
    n++;
    atNs += n === 1 ? baseRtoNs : backedOffRtoNs(baseRtoNs, n - 1);
  }
  return { atNs, n };
}

/**
 * How long Linux keeps retransmitting before it gives the connection up (`tcp_model_timeout`): the
 * RTO from TCP_RTO_MIN doubles until TCP_RTO_MAX, then stays there, for `retries` tries. The default
 * 15 gives 924.6 s.
 */
export function giveUpAfterNs(retries = TCP_RETRIES2): number {
  const linearBackoffThresh = Math.floor(Math.log2(TCP_RTO_MAX_NS / TCP_RTO_MIN_NS));
  if (retries <= linearBackoffThresh) return (2 ** (retries + 1) - 1) * TCP_RTO_MIN_NS;
  return (2 ** (linearBackoffThresh + 1) - 1) * TCP_RTO_MIN_NS + (retries - linearBackoffThresh) * TCP_RTO_MAX_NS;
}

/**
 * The tail-loss probe's timer from the last send (`tcp_schedule_loss_probe`): 2 x SRTT, plus
 * TCP_RTO_MIN when one segment is in flight (the receiver's delayed ACK may hold the answer) or
 * TCP_TIMEOUT_MIN otherwise, never later than the RTO would fire.
 */
export function tlpTimeoutNs(srttNs: number, segmentsInFlight: number, rtoAtNs: number): number {
  const slackNs = segmentsInFlight <= 1 ? TCP_RTO_MIN_NS : TCP_TIMEOUT_MIN_NS;
  return Math.min(2 * srttNs + slackNs, rtoAtNs);
}

/**
 * RACK (RFC 8985 6.2): a segment is deemed lost when a segment sent after it is acknowledged and a
 * reordering window has passed since then; the ACK of the later one comes one RTT after its send,
 * and the window is a quarter of the minimum RTT (`tcp_rack_reo_wnd`). So the resend leaves this
 * long after the lost segment's send, when the later one went with it.
 */
export function rackDetectNs(srttNs: number): number {
  return srttNs + srttNs / 4;
}

/**
 * When a connect whose every SYN is lost fails (ETIMEDOUT), from the first SYN: the wait after the
 * last of `retries` resends runs out too. 1 + 2 + ... + 64 = 127 s for Linux's default 6.
 */
export function synGiveUpAfterNs(retries = TCP_SYN_RETRIES): number {
  return retransmitAtNs(TCP_TIMEOUT_INIT_NS, retries + 1);
}

/**
 * The wait before the n-th retransmission of a SYN (n = 1 is the first): TCP_TIMEOUT_INIT doubled
 * each time, 1 s, 2 s, 4 s.
 */
export function synRetryNs(n: number): number {
  return backedOffRtoNs(TCP_TIMEOUT_INIT_NS, n);
}
