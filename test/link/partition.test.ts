import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { DelayLine } from '../../src/link/delay-line.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { PartitionFlight, partitionRequestOf, synGiveUpNs, synHealNs, type PartitionWindow } from '../../src/link/partition.js';
import { firstResendAfterNs, rtoNs } from '../../src/link/rto.js';
import type { EndKind } from '../../src/stage/types.js';
import { ConfigError } from '../../src/errors.js';
import { startPrivateRedis, startProxy } from '../../src/index.js';

const MS = 1_000_000;
const S = 1_000_000_000;

function setup(delayNs: number) {
  const clock = new FakeClock();
  const scheduler = new ManualScheduler(clock);
  const delivered: { data: string; atNs: number }[] = [];
  const ends: { kind: EndKind; atNs: number }[] = [];
  const line = new DelayLine({
    scheduler,
    sampleDelayNs: () => delayNs,
    bandwidthBps: () => 0,
    deliver: (chunks, _end, atNs) => delivered.push({ data: Buffer.concat(chunks).toString(), atNs }),
    onEnd: (kind, atNs) => ends.push({ kind, atNs }),
  });
  const push = (data: string, atNs: number): void => {
    scheduler.runUntil(atNs);
    line.push(Buffer.from(data), atNs);
  };
  return { clock, scheduler, line, delivered, ends, push };
}

const window = (startNs: number, endNs: number, then: 'heal' | 'reset' = 'heal'): PartitionWindow => ({ startNs, endNs, then });

describe('a partition that heals', () => {
  it('sends what it held at the first retry after the heal: 12.8 s after the loss for a 10 s partition from a 200 ms RTO', () => {
    // 1.2 ms RTT: RTO = 1.2 ms + 200 ms; the probe, then the doubling RTO: 201.2, 402.4, 804.8, ... ms after the loss.
    const rto = rtoNs(1.2 * MS, 0);
    const { scheduler, line, delivered, push } = setup(0.6 * MS);
    line.partition(new PartitionFlight(window(0, 10 * S), rto));
    push('GET a', 1 * S);
    push('GET b', 3 * S);
    scheduler.runUntil(12 * S);
    expect(delivered).toEqual([]);
    scheduler.runUntil(30 * S);
    const resendNs = 1 * S + firstResendAfterNs(rto, 9 * S).atNs;
    // 1 s + 2^6 x 201.2 ms: the 7th try is the first after the heal at 10 s.
    expect(resendNs).toBe(1 * S + 64 * rto);
    expect(delivered).toEqual([{ data: 'GET aGET b', atNs: resendNs + 0.6 * MS }]);
  });

  it('after a 10 s partition a segment lost at its start is resent 12.8 s after the loss (rto 200 ms), as Linux does', () => {
    // Linux 6.18, measured: the probe at the RTO, then the RTO doubling: 0.21, 0.42, 0.85, 1.68, 3.39, 6.80, 13.46 s (RTO 204 ms).
    expect(firstResendAfterNs(200 * MS, 10 * S).atNs).toBe(12.8 * S);
  });

  it('keeps bytes behind the resend in order: a chunk sent after the heal waits for it', () => {
    const rto = 200 * MS;
    const { scheduler, line, delivered, push } = setup(1 * MS);
    line.partition(new PartitionFlight(window(0, 1 * S), rto));
    push('a', 0); // retries at 0.2, 0.4, 0.8, 1.6 s: resent at 1.6 s
    push('b', 1.1 * S); // after the heal, before the resend: TCP has it queued behind 'a'
    push('c', 2 * S); // after the resend: on time
    scheduler.runUntil(5 * S);
    expect(delivered).toEqual([
      { data: 'ab', atNs: 1.6 * S + 1 * MS },
      { data: 'c', atNs: 2 * S + 1 * MS },
    ]);
  });

  it('takes the bytes already on the wire at the cut, and the FIN behind them', () => {
    const { scheduler, line, delivered, ends, push } = setup(50 * MS);
    push('early', 0); // due 50 ms: before the cut, delivered
    push('inflight', 80 * MS); // due 130 ms: on the wire at the cut (100 ms)
    line.end('end', 90 * MS);
    scheduler.runUntil(100 * MS);
    line.partition(new PartitionFlight(window(100 * MS, 600 * MS), 200 * MS));
    scheduler.runUntil(10 * S);
    // The cut's timer: the probe at 100 ms + 0.2 s, the RTO at + 0.4, then + 0.8 = 900 ms, the first after the heal;
    // then the remaining 30 ms of its trip.
    expect(delivered).toEqual([
      { data: 'early', atNs: 50 * MS },
      { data: 'inflight', atNs: 930 * MS },
    ]);
    expect(ends).toEqual([{ kind: 'end', atNs: 940 * MS }]);
  });

  // Taken as sent at each cut, the held chunk's remaining wait was counted again: 1809.6 ms with a second
  // partition that healed before its resend, 2412.6 ms with one that took it (Linux: 1608.6 and 3216.6 ms).
  it('a second partition while the first one\'s resend is still to come meets that resend, on the sender\'s own backoff', () => {
    const rto = 201 * MS;
    const held = (second: PartitionWindow): number => {
      const { scheduler, line, delivered, push } = setup(0.5 * MS);
      line.partition(new PartitionFlight(window(0, 1 * S), rto));
      push('GET a', 0.1 * MS);
      scheduler.runUntil(second.startNs);
      line.partition(new PartitionFlight(second, rto));
      scheduler.runUntil(10 * S);
      expect(delivered.map((d) => d.data)).toEqual(['GET a']);
      return delivered[0]!.atNs;
    };
    // The 4th try (201 + 201 + 402 + 804 ms after the loss) is the first after the first heal.
    const firstResendNs = 0.1 * MS + firstResendAfterNs(rto, 1 * S).atNs;
    expect(firstResendNs).toBe(1608.1 * MS);
    // Healed at 1.3 s, before that try: it goes through as if there had been no second partition.
    expect(held(window(1.1 * S, 1.3 * S))).toBe(firstResendNs + 0.5 * MS);
    // Healed at 1.7 s: that try is lost too, and the next, 3.216 s after the loss, carries it.
    expect(held(window(1.1 * S, 1.7 * S))).toBe(0.1 * MS + 16 * rto + 0.5 * MS);
  });

  it('leaves a direction that sent nothing during the partition alone', () => {
    const { scheduler, line, delivered, push } = setup(1 * MS);
    const flight = new PartitionFlight(window(0, 1 * S), 200 * MS);
    line.partition(flight);
    push('later', 2 * S);
    scheduler.runUntil(3 * S);
    expect(delivered).toEqual([{ data: 'later', atNs: 2 * S + 1 * MS }]);
    expect(flight.lost).toBe(false);
    expect(line.partitionFlight).toBeUndefined();
  });

  it('says when the sender gives up: before the try after the heal, in a partition longer than Linux retransmits (924.6 s) or not', () => {
    const gaveUp = (endS: number): boolean => {
      const flight = new PartitionFlight(window(0, endS * S), 200 * MS);
      flight.dueNs(1 * MS, 0);
      return flight.gaveUp();
    };
    // Healed at 800 s: the try at 804.8 s carries it. At 900 s the next try would be at 924.8 s, past the give-up.
    expect(gaveUp(800)).toBe(false);
    expect(gaveUp(900)).toBe(true);
    expect(gaveUp(930)).toBe(true);
  });

  it('holds a connection accepted in the partition until its SYN retry after the heal (1 s, 2 s, 4 s ...)', () => {
    // Accepted 0.5 s into a 2 s partition: SYN retries at 1.5 s and 3.5 s; the second is after the heal.
    expect(synHealNs(0.5 * S, window(0, 2 * S))).toBe(3.5 * S);
    expect(synHealNs(3 * S, window(0, 2 * S))).toBe(3 * S);
  });

  it('resets one whose client runs out of SYN retries first: the 6th at 63 s, connect() failing at 127 s', () => {
    expect(synGiveUpNs(0, window(0, 63 * S))).toBeUndefined();
    expect(synGiveUpNs(0, window(0, 63.001 * S))).toBe(127 * S);
    expect(synGiveUpNs(10 * S, window(0, 600 * S))).toBe(137 * S);
    expect(synGiveUpNs(600 * S, window(0, 600 * S))).toBeUndefined();
  });

  it('reads a partition from a link change, refusing zero, a bad end, and then alone', () => {
    expect(partitionRequestOf({ partition: '10s' })).toEqual({ durationUs: 10_000_000, then: 'heal' });
    expect(partitionRequestOf({ partition: '1.5s', then: 'reset' })).toEqual({ durationUs: 1_500_000, then: 'reset' });
    expect(partitionRequestOf({})).toBeUndefined();
    expect(() => partitionRequestOf({ partition: '0s' })).toThrow(/partition: .*above 0/);
    expect(() => partitionRequestOf({ partition: '-1s' })).toThrow(ConfigError);
    expect(() => partitionRequestOf({ partition: '1s', then: 'crash' })).toThrow(/then: .*heal \| reset/);
    expect(() => partitionRequestOf({ then: 'reset' })).toThrow(/then: .*only with partition/);
  });
});

describe('setLink with no object (JavaScript)', () => {
  it('is a ConfigError naming link, the link unchanged (it was a TypeError reading partition)', async () => {
    await using redis = await startPrivateRedis();
    await using proxy = await startProxy({ upstream: redis.address, link: { rttUs: 2000 } });
    expect(partitionRequestOf(null as never)).toBeUndefined();
    for (const bad of [null, 'rtt=5ms', 5]) {
      expect(() => proxy.setLink(bad as never)).toThrow(ConfigError);
      expect(() => proxy.setLink(bad as never)).toThrow(/^link: invalid value /);
    }
    expect(proxy.link()).toMatchObject({ upUs: 1000, downUs: 1000 });
  });
});
