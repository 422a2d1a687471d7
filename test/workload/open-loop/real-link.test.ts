import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSingleNodeProxy } from '../../../src/proxy/index.js';
import type { RedisRttProxy } from '../../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../../src/redis/index.js';
import { parseAddress } from '../../../src/endpoint.js';
import { connectClient, type DriverClient } from '../../../src/workload/clients.js';
import { counterValue, runOpenLoop, type OpenLoopRunOptions } from '../../../src/workload/open-loop/run.js';
import { IncrConnection } from '../../../src/workload/open-loop/incr-connection.js';
import { IoredisIncrSender } from '../../../src/workload/open-loop/ioredis-sender.js';
import type { IncrSender } from '../../../src/workload/open-loop/sender.js';

// Real redis-server, real proxies with a delay, real clients (bare INCR connections; ioredis for
// auto-pipelining): the open-loop runner end to end.
let redis: PrivateRedis;
let admin: DriverClient;
const proxies: RedisRttProxy[] = [];
const clients: IncrSender[] = [];
const KEY = 'ol:counter';

beforeAll(async () => {
  redis = await startPrivateRedis();
  admin = await connectClient(parseAddress(redis.address), { protocol: 2 });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await admin?.close();
  await Promise.all(proxies.map((p) => p.close()));
  await redis?.stop();
});

async function link(rttUs: number, connections: number): Promise<{ proxy: RedisRttProxy; conns: IncrSender[] }> {
  const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs }, compensationUs: { up: 0, down: 0 }, log: () => {} });
  proxies.push(proxy);
  const conns = await Promise.all(
    Array.from({ length: connections }, () => IncrConnection.open({ endpoint: parseAddress(proxy.address), key: KEY, replyTimeoutMs: 30_000 })),
  );
  clients.push(...conns);
  return { proxy, conns };
}

async function run(o: Partial<OpenLoopRunOptions> & Pick<OpenLoopRunOptions, 'clients' | 'durationUs'> & { proxy?: RedisRttProxy }) {
  await admin.redis.set(KEY, '0');
  const { proxy, ...rest } = o;
  const out = await runOpenLoop({
    multiplexed: false,
    arrival: 'uniform',
    batchWindowUs: 0,
    maxBatch: 1,
    seed: 1,
    drainLimitUs: 10_000_000,
    ...(proxy ? { roundTrips: () => proxy.stats().totals.roundTrips } : {}),
    ...rest,
  });
  expect(out.error).toBeUndefined();
  expect(await counterValue(admin.redis, KEY)).toBe(out.ledger.completed);
  return out;
}

describe('progress of a long run', () => {
  it('says every progressEveryMs how many were sent and answered and what the backlog holds, into the drain', async () => {
    // One connection through 20 ms for 100/s over 1 s: twice its capacity, so half is still due at the end.
    const { conns } = await link(20_000, 1);
    const seen: { elapsedS: number; sent: number; completed: number; backlog: number }[] = [];
    const out = await run({ clients: conns, ratePerSec: 100, durationUs: 1_000_000, onProgress: (p) => seen.push(p), progressEveryMs: 250 });
    expect(seen.length).toBeGreaterThanOrEqual(5); // 1 s and about 1 s of drain
    for (const p of seen) {
      // At each moment: the due commands are sent or in the backlog; one at most is in flight.
      const due = Math.min(100, Math.floor(p.elapsedS * 100) + 1);
      expect(p.sent + p.backlog).toBeGreaterThanOrEqual(due - 1);
      expect(p.sent + p.backlog).toBeLessThanOrEqual(due + 1);
      expect(p.sent - p.completed).toBeLessThanOrEqual(1);
    }
    expect(seen.some((p) => p.elapsedS > 1 && p.backlog > 0)).toBe(true);
    expect(out.ledger.completed).toBe(100);
  });
});

describe('open loop through a real proxy', () => {
  it('keeps the schedule and reports corrected = uncorrected when nothing queues (16 connections, 2 ms, 60/s)', async () => {
    // 16 connections for 60 commands a second: even a driver stalled for 250 ms by a loaded machine
    // finds a free connection for every command it then releases at once, so nothing queues.
    const { proxy, conns } = await link(2000, 16);
    const out = await run({ clients: conns, ratePerSec: 60, durationUs: 1_000_000, proxy });
    const l = out.ledger;
    expect(out.scheduled).toBe(60);
    expect(l.completed).toBe(60);
    expect(l.sent).toBe(60);
    expect(out.roundTrips).toBe(60);
    // Every command found a free connection: the corrected latency is the uncorrected one plus the
    // driver's own lateness, and nothing else.
    const late = l.lateness.summary();
    const c = l.corrected.summary();
    const u = l.uncorrected.summary();
    for (const k of ['p50', 'p90', 'p99'] as const) {
      expect(c[k] - u[k], `${k}: corrected ${c[k]} uncorrected ${u[k]} late p99 ${late.p99}`).toBeLessThanOrEqual(Math.max(0.05 * u[k], 100) + late.p99);
      expect(c[k]).toBeGreaterThanOrEqual(u[k]);
    }
    expect(u.p50).toBeGreaterThanOrEqual(2000);
  });

  it('corrected grows with the run when one connection gets twice its capacity (20 ms), uncorrected does not', async () => {
    const { proxy, conns } = await link(20_000, 1);
    // Capacity is at most 50/s (one 20 ms round trip at a time); 100/s for 1.5 s is at least twice it.
    const out = await run({ clients: conns, ratePerSec: 100, durationUs: 1_500_000, proxy });
    const l = out.ledger;
    expect(l.completed).toBe(150);
    const first = l.correctedFirstHalf.valueAtPercentile(99);
    const second = l.correctedSecondHalf.valueAtPercentile(99);
    expect(second, `p99 first half ${first} us, second half ${second} us`).toBeGreaterThanOrEqual(1.5 * first);
    const u = l.uncorrected.summary();
    expect(u.p50).toBeGreaterThanOrEqual(20_000);
    expect(u.p50).toBeLessThan(40_000);
    expect(l.peakBacklog).toBeGreaterThan(50);
    // Achieved: at most one reply per 20 ms over the 1.5 s.
    expect(l.completedInDuration).toBeLessThanOrEqual(76);

    // D/D/1 (docs/open-loop.md): arrivals every a = 10 ms, service S = the measured round trip.
    // The connection never idles once the backlog forms, so command k leaves at (k+1)S and its
    // corrected latency is (k+1)S - k a: the mean over N commands is S + (N-1)(S-a)/2.
    const S = u.mean;
    const a = 10_000;
    const n = l.completed;
    const modelMean = S + ((n - 1) * (S - a)) / 2;
    const measuredMean = l.corrected.summary().mean;
    expect(Math.abs(measuredMean - modelMean) / modelMean, `measured ${measuredMean} us, D/D/1 ${modelMean} us`).toBeLessThan(0.1);
  });

  it('mux: the same twice-capacity schedule on one connection does not queue, every command written when due', async () => {
    const { proxy, conns } = await link(20_000, 1);
    // The shape above (100/s over one 20 ms connection), with commands in flight side by side.
    const out = await run({ clients: conns, multiplexed: true, ratePerSec: 100, durationUs: 1_500_000, proxy });
    const l = out.ledger;
    expect(l.completed).toBe(150);
    // Nothing waits for a connection: a command is written in the turn that sees it due (the one
    // connection above made the last ones wait about a second).
    expect(l.connectionWait.summary().p99).toBeLessThan(1000);
    // The connection above held a backlog of over 50.
    expect(l.peakBacklog).toBeLessThan(20);
    // About one round trip each: the 20 ms link and whatever the machine adds, nowhere near the
    // seconds of backlog the one-in-flight connection built.
    const c = l.corrected.summary();
    const u = l.uncorrected.summary();
    expect(u.p50).toBeGreaterThanOrEqual(20_000);
    expect(c.p99, `corrected p99 ${c.p99} us, uncorrected ${u.p99} us`).toBeLessThan(60_000);
    // What corrected has over uncorrected is the driver's lateness alone.
    const late = l.lateness.summary();
    expect(c.p50 - u.p50).toBeLessThanOrEqual(late.max);
  });

  it('a batching window sends fewer writes and the proxy sees fewer round trips', async () => {
    const { proxy, conns } = await link(2000, 4);
    const plain = await run({ clients: conns, ratePerSec: 800, durationUs: 500_000, proxy });
    const batched = await run({ clients: conns, ratePerSec: 800, durationUs: 500_000, proxy, batchWindowUs: 5000, maxBatch: 16 });
    expect(plain.ledger.completed).toBe(400);
    expect(batched.ledger.completed).toBe(400);
    // Commands every 1.25 ms, a 5 ms window: batches of about 4, so at most a third of the writes.
    expect(batched.ledger.batchesSent).toBeLessThan(plain.ledger.batchesSent / 3);
    expect(batched.roundTrips).toBeLessThanOrEqual(batched.ledger.batchesSent);
    expect(plain.roundTrips).toBeGreaterThan(batched.roundTrips! * 3);
    // The first command of a batch waits the whole window for it to close.
    expect(batched.ledger.batchWait.summary().max).toBeGreaterThanOrEqual(5000);
  });

  it('closed loops: C connections busy back to back for the duration', async () => {
    const { proxy, conns } = await link(5000, 3);
    const out = await run({ clients: conns, durationUs: 300_000, proxy });
    const l = out.ledger;
    // At most 3 x 300 / 5 = 180 (a 5 ms link); every loop busy all the time: 3 outstanding on average.
    expect(l.completed).toBeGreaterThanOrEqual(6);
    expect(l.completed).toBeLessThanOrEqual(180 + 3);
    expect(l.meanOutstanding()).toBeGreaterThan(2.7);
    expect(l.meanOutstanding()).toBeLessThanOrEqual(3);
    expect(l.corrected.summary()).toEqual(l.uncorrected.summary());
  });

  it('auto-pipelining clients: open loop and closed loops both finish with every INCR answered once', async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 2000 }, compensationUs: { up: 0, down: 0 }, log: () => {} });
    proxies.push(proxy);
    const conns = await Promise.all(
      [0, 1].map(async () => new IoredisIncrSender(await connectClient(parseAddress(proxy.address), { autoPipelining: true }), KEY)),
    );
    clients.push(...conns);
    const open = await run({ clients: conns, multiplexed: true, ratePerSec: 1000, durationUs: 300_000, proxy });
    expect(open.ledger.completed).toBe(300);
    // Handed over as they come due, so ioredis batches whatever is due while a write is out.
    expect(open.roundTrips).toBeLessThan(300);
    const closed = await run({ clients: conns, multiplexed: true, durationUs: 200_000, proxy });
    expect(closed.ledger.completed).toBeGreaterThan(10);
    expect(closed.ledger.completed).toBeLessThanOrEqual(2 * 100 + 2);
  });

  it('stops on abort: nothing more is sent, what finished is kept', async () => {
    const { conns } = await link(20_000, 1);
    const ac = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac.abort(), 300);
    const out = await run({ clients: conns, ratePerSec: 100, durationUs: 10_000_000, signal: ac.signal });
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(out.stopped).toBe('aborted');
    expect(out.ledger.completed).toBeGreaterThan(3);
    expect(out.unsent).toBeGreaterThan(900);
  });
});
