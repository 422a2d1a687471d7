import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { DelayLine } from '../../src/link/delay-line.js';
import { lossChain, handshakeLossNs, newLossCounters, SegmentLoss, type LossPath } from '../../src/link/loss-model.js';
import { LinkState } from '../../src/link/link-state.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { parseRttSeries } from '../../src/link/rtt-series.js';
import { seededUniform } from '../../src/link/rng.js';

const MS = 1_000_000;
const LOST = 0;
const THROUGH = 0.99;

/** A loss path whose uniform plays `script` (LOST / THROUGH per roll), then never loses. */
function scripted(script: number[], o: Partial<LossPath> = {}): LossPath {
  let i = 0;
  return {
    rate: 0.5,
    rateAfterLoss: 0.5,
    resendRate: 0.5,
    mssBytes: 10,
    srttNs: 1.2 * MS,
    rttvarNs: 0,
    uniform: () => script[i++] ?? THROUGH,
    counters: newLossCounters(),
    ...o,
  };
}

function line(loss: LossPath, delayNs = 0.6 * MS) {
  const clock = new FakeClock();
  const scheduler = new ManualScheduler(clock);
  const delivered: { data: string; atMs: number }[] = [];
  const l = new DelayLine({
    scheduler,
    sampleDelayNs: () => delayNs,
    bandwidthBps: () => 0,
    deliver: (chunks, _end, atNs) => delivered.push({ data: Buffer.concat(chunks).toString(), atMs: Math.round((atNs / MS) * 1000) / 1000 }),
    onEnd: () => undefined,
    loss,
  });
  return { clock, scheduler, line: l, delivered };
}

describe('loss model on the delay line', () => {
  it('a lost single segment arrives one RTO (SRTT + 200 ms) late; nothing is dropped', () => {
    const t = line(scripted([LOST]));
    t.line.push(Buffer.from('GET k'), 0);
    t.scheduler.runUntil(1000 * MS);
    expect(t.delivered).toEqual([{ data: 'GET k', atMs: 201.8 }]);
  });

  it('at 85 ms RTT the same loss costs 285 ms', () => {
    const t = line(scripted([LOST], { srttNs: 85 * MS }), 42.5 * MS);
    t.line.push(Buffer.from('x'), 0);
    t.scheduler.runUntil(1000 * MS);
    expect(t.delivered).toEqual([{ data: 'x', atMs: 327.5 }]);
  });

  // The loss path took SRTT from the flags' link only: a series of 85 ms over a link left at 0 priced a loss at 200 ms.
  it('on a moving link the RTO follows the RTT now: a series of 85 ms over a 0 ms link costs 285 ms a loss', () => {
    const clock = new FakeClock();
    const scheduler = new ManualScheduler(clock);
    const link = new LinkState({ lossUp: 0.3 }, { clock, seed: 3 });
    link.reshape((shape) => shape.setSeries(parseRttSeries('0,85'), true, 0));
    const sentAtNs: number[] = [];
    const delaysMs: number[] = [];
    const l = new DelayLine({
      scheduler,
      sampleDelayNs: link.sampleNsOf.up,
      bandwidthBps: () => 0,
      deliver: (_chunks, end, atNs) => delaysMs.push(Math.round((atNs - sentAtNs[end - 1]!) / 1000) / 1000),
      onEnd: () => undefined,
      loss: link.lossPath('up'),
    });
    // One byte every 10 s (no chunk waits for another): each arrives 42.5 ms after its send, or k RTOs later.
    for (let i = 0; i < 20; i++) {
      scheduler.runUntil(i * 10_000 * MS);
      sentAtNs.push(clock.nowNs());
      l.push(Buffer.from('x'), clock.nowNs());
    }
    scheduler.runUntil(400_000 * MS);
    expect(delaysMs).toHaveLength(20);
    expect(delaysMs).toContain(42.5 + 285);
    expect(delaysMs.every((ms) => [42.5, 42.5 + 285, 42.5 + 570, 42.5 + 1140].includes(ms))).toBe(true);
  });

  it('a loss with later segments through is found by RACK, 1.25 RTT after the send; the bytes before it go on time', () => {
    // Three segments of 10 bytes: the second lost.
    const t = line(scripted([THROUGH, LOST, THROUGH]));
    t.line.push(Buffer.from('aaaaaaaaaabbbbbbbbbbcccccccccc'), 0);
    t.scheduler.runUntil(1000 * MS);
    expect(t.delivered).toEqual([
      { data: 'aaaaaaaaaa', atMs: 0.6 },
      { data: 'bbbbbbbbbbcccccccccc', atMs: 0.6 + 1.5 },
    ]);
  });

  it('a lost tail of a longer flight is probed at 2 x SRTT + 2 ms', () => {
    const t = line(scripted([THROUGH, THROUGH, LOST]));
    t.line.push(Buffer.from('aaaaaaaaaabbbbbbbbbbcc'), 0);
    t.scheduler.runUntil(1000 * MS);
    expect(t.delivered).toEqual([
      { data: 'aaaaaaaaaabbbbbbbbbb', atMs: 0.6 },
      { data: 'cc', atMs: 0.6 + 4.4 },
    ]);
  });

  it('the rest of a lost tail waits for the probe and one more SRTT', () => {
    const t = line(scripted([THROUGH, LOST, LOST]));
    t.line.push(Buffer.from('aaaaaaaaaabbbbbbbbbbcc'), 0);
    t.scheduler.runUntil(1000 * MS);
    expect(t.delivered).toEqual([
      { data: 'aaaaaaaaaa', atMs: 0.6 },
      { data: 'bbbbbbbbbbcc', atMs: 0.6 + 4.4 + 1.2 },
    ]);
  });

  it('a resend lost again waits the RTO, then twice it: through after 2, 4, 8 RTOs', () => {
    const rto = 201.2;
    for (const [script, extraMs] of [
      [[LOST, LOST], 2 * rto],
      [[LOST, LOST, LOST], 4 * rto],
      [[LOST, LOST, LOST, LOST], 8 * rto],
    ] as const) {
      const loss = scripted([...script]);
      const t = line(loss);
      t.line.push(Buffer.from('x'), 0);
      t.scheduler.runUntil(10_000 * MS);
      expect(t.delivered[0]!.atMs).toBeCloseTo(0.6 + extraMs, 6);
      expect(loss.counters).toMatchObject({ segments: 1, lost: script.length, retransmitted: script.length });
    }
  });

  it('everything behind a lost segment on the connection waits (head-of-line); another connection does not', () => {
    const loss = scripted([LOST]);
    const a = line(loss);
    a.line.push(Buffer.from('first'), 0);
    a.clock.setNs(1 * MS);
    a.line.push(Buffer.from('second'), 1 * MS);
    a.scheduler.runUntil(1000 * MS);
    // 'second' waits for 'first', whose loss its SACK reveals (RACK: 1 ms + SRTT 1.2 ms), not the probe at 201.2 ms.
    expect(a.delivered).toEqual([{ data: 'firstsecond', atMs: 2.8 }]);
    const b = line(loss);
    b.line.push(Buffer.from('other'), 0);
    b.scheduler.runUntil(1000 * MS);
    expect(b.delivered).toEqual([{ data: 'other', atMs: 0.6 }]);
  });

  // Each chunk was a flight of its own: a lost request paid the probe's 200 ms however busy its connection was, where
  // a later write's SACK tells Linux's RACK of the loss about an RTT after it (pub/sub, pipelined clients).
  it('a lost tail is found by a later chunk that gets through (its SACK, RACK), not at the probe, if that is sooner', () => {
    for (const [laterMs, lostAtMs] of [
      [0.1, 2.1], // the reordering window: 1.25 SRTT after the loss, plus the one-way 0.6 ms
      [1, 2.8], // the later chunk's SACK: its send + SRTT
      [100, 101.8],
      [250, 201.8], // after the probe fired: it was resent then
    ] as const) {
      const loss = scripted([LOST]);
      const t = line(loss);
      t.line.push(Buffer.from('lost'), 0);
      t.scheduler.runUntil(laterMs * MS);
      t.line.push(Buffer.from('next'), laterMs * MS);
      t.scheduler.runUntil(1000 * MS);
      expect(t.delivered[0], `later chunk at ${laterMs} ms`).toEqual({ data: laterMs < 201.2 ? 'lostnext' : 'lost', atMs: lostAtMs });
      expect(loss.counters).toMatchObject({ segments: 2, lost: 1, retransmitted: 1, retransmitNs: Math.round((lostAtMs - 0.6) * MS) });
    }
    // A later chunk lost whole reveals nothing: both wait for their probes.
    // Rolls: the first send of each, then its resend's.
    const t = line(scripted([LOST, THROUGH, LOST, THROUGH]));
    t.line.push(Buffer.from('lost'), 0);
    t.clock.setNs(1 * MS);
    t.line.push(Buffer.from('next'), 1 * MS);
    t.scheduler.runUntil(1000 * MS);
    expect(t.delivered).toEqual([
      { data: 'lost', atMs: 201.8 },
      { data: 'next', atMs: 202.8 },
    ]);
  });

  it('keeps every byte in order under heavy seeded loss', () => {
    const loss: LossPath = { ...scripted([]), rate: 0.2, rateAfterLoss: 0.5, resendRate: 0.2, uniform: seededUniform(7) };
    const t = line(loss);
    const sent: string[] = [];
    for (let i = 0; i < 300; i++) {
      const chunk = `${i}:`.padEnd(1 + (i % 37), String.fromCharCode(97 + (i % 26)));
      sent.push(chunk);
      t.clock.setNs(i * 0.1 * MS);
      t.line.push(Buffer.from(chunk), i * 0.1 * MS);
    }
    t.scheduler.runUntil(1e6 * MS);
    expect(t.delivered.map((d) => d.data).join('')).toBe(sent.join(''));
    const times = t.delivered.map((d) => d.atMs);
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(loss.counters.lost).toBeGreaterThan(0);
    expect(t.line.pendingBytes).toBe(0);
  });
});

describe('loss chain', () => {
  function simulate(rate: number, burst: number, n = 400_000) {
    const c = lossChain(rate, burst);
    const path: LossPath = { ...scripted([]), ...c, mssBytes: 1, uniform: seededUniform(11) };
    const s = new SegmentLoss(path);
    // One-byte chunks of one segment: count first-send losses and their runs.
    let lost = 0;
    let runs = 0;
    let longestResendNs = 0;
    let prev = false;
    for (let i = 0; i < n; i++) {
      const before = path.counters.retransmitted;
      s.plan(1);
      const now = path.counters.retransmitted > before;
      if (now) {
        lost++;
        longestResendNs = Math.max(longestResendNs, s.pieceExtraNs[0]!);
      }
      if (now && !prev) runs++;
      prev = now;
    }
    return { share: lost / n, meanRun: lost / runs, resendsPerLoss: path.counters.retransmitted / lost, longestResendNs };
  }

  it('independent losses by default: the share is the rate', () => {
    expect(lossChain(0.01, 0)).toEqual({ rate: 0.01, rateAfterLoss: 0.01, resendRate: 0.01 });
    const r = simulate(0.05, 0);
    expect(r.share).toBeGreaterThan(0.048);
    expect(r.share).toBeLessThan(0.052);
    // A run of independent losses: 1 / (1 - rate) long on average.
    expect(r.meanRun).toBeCloseTo(1 / 0.95, 1);
  });

  it('bursts: first sends lose runs of the mean length at the long-run share', () => {
    const r = simulate(0.02, 4);
    expect(r.share).toBeGreaterThan(0.018);
    expect(r.share).toBeLessThan(0.022);
    expect(r.meanRun).toBeGreaterThan(3.6);
    expect(r.meanRun).toBeLessThan(4.4);
  });

  it('a resend is lost at the long-run rate, not the burst\'s: 1% in bursts of 10 does not back off for minutes', () => {
    // With the bad state's 0.9 on resends, a loss took 10 tries on average and its backoff reached 120 s.
    const r = simulate(0.01, 10);
    expect(r.resendsPerLoss).toBeGreaterThan(1);
    expect(r.resendsPerLoss).toBeLessThan(1.02);
    // SRTT 1.2 ms, RTO 201.2 ms: a lone segment's probe, then 1, 2, 4 RTOs at most at these odds.
    expect(r.longestResendNs).toBeLessThan(3.5 * MS * 1000);
  });

  it('a mean burst length keeps the long-run rate', () => {
    const c = lossChain(0.02, 4);
    expect(c.rateAfterLoss).toBe(0.75);
    expect(c.rate / (1 - c.rateAfterLoss + c.rate)).toBeCloseTo(0.02, 12);
  });

  it('a lost SYN costs 1 s, then 2 s more', () => {
    const up = scripted([LOST, LOST]);
    const down = scripted([]);
    expect(handshakeLossNs(up, down)).toBe(3000 * MS);
    expect(handshakeLossNs(scripted([]), scripted([]))).toBe(0);
  });

  it('a SYN is lost at the long-run rate, not the burst chain\'s good-state one', () => {
    // 10% in bursts of 10: the good state loses 1.1%; a SYN on its own 10%.
    const path = (seed: number): LossPath => ({
      ...lossChain(0.1, 10),
      mssBytes: 1448,
      srttNs: MS,
      rttvarNs: 0,
      uniform: seededUniform(seed),
      counters: newLossCounters(),
    });
    const noLoss = { ...path(0), rate: 0, rateAfterLoss: 0, resendRate: 0 };
    const up = path(7);
    let slow = 0;
    for (let i = 0; i < 4000; i++) if (handshakeLossNs(up, noLoss) > 0) slow++;
    expect(slow / 4000).toBeGreaterThan(0.08);
    expect(slow / 4000).toBeLessThan(0.12);
  });
});
