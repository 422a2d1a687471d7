import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { proxyClient } from './helpers.js';

/** An idle proxy is watched this long, after SETTLE_MS for the closing connection's last timers. */
const IDLE_WINDOW_MS = 2000;
const SETTLE_MS = 200;

/** CPU time (user + system) of this process over `ms` of wall time, as a fraction of one core. */
async function cpuShare(ms: number): Promise<number> {
  const before = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await sleep(ms);
  const used = process.cpuUsage(before);
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
  return (used.user + used.system) / wallUs;
}

describe("the proxy's self-report (/stats self)", () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  /** This process's CPU share while idle with no proxy: the test runner's own timers and messages. */
  let baselineShare = 0;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    await sleep(SETTLE_MS);
    baselineShare = await cpuShare(IDLE_WINDOW_MS);
    proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 2000 }, compensationUs: { up: 0, down: 0 } });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it('reports lateness per direction, read lag, loop delay and GC pauses once traffic flowed', async () => {
    const c = proxyClient(proxy);
    await c.connect();
    proxy.resetStats();
    for (let i = 0; i < 60; i++) await c.set(`k${i}`, 'v'.repeat(100));
    // The loop monitor samples every 50 ms: keep connections open and busy for a few of its periods.
    for (let i = 0; i < 60; i++) await c.get(`k${i}`);
    const p = c.pipeline();
    for (let i = 0; i < 200; i++) p.get(`k${i % 60}`);
    await p.exec();
    const self = proxy.stats().self!;
    expect(self).toBeDefined();
    expect(Object.keys(self).sort()).toEqual(['addedUs', 'arrivalLagUs', 'eventLoopDelayUs', 'gcPauseUs', 'lateUs', 'lateUsByDirection', 'roundTripAddedUs']);
    // Every delivered chunk has an added time, and it is at least the chunk's lateness.
    expect(self.addedUs.count).toBe(self.lateUs.count);
    expect(self.addedUs.max).toBeGreaterThanOrEqual(self.lateUs.max);
    // Every request and every reply went through a delay line: one lateness value per delivery.
    expect(self.lateUs.count).toBeGreaterThanOrEqual(122);
    expect(self.lateUs.count).toBe(self.lateUsByDirection.up.count + self.lateUsByDirection.down.count);
    expect(self.lateUsByDirection.up.count).toBeGreaterThanOrEqual(61);
    expect(self.lateUsByDirection.down.count).toBeGreaterThanOrEqual(61);
    // One round trip figure per reply chunk, each its reply's added time plus its request's.
    expect(self.roundTripAddedUs.count).toBe(self.lateUsByDirection.down.count);
    expect(self.roundTripAddedUs.p50).toBeGreaterThanOrEqual(self.addedUs.p50);
    const all = [self.addedUs, self.roundTripAddedUs, self.lateUs, self.lateUsByDirection.up, self.lateUsByDirection.down, self.arrivalLagUs];
    for (const q of [...all, self.eventLoopDelayUs]) {
      expect(Number.isFinite(q.p99)).toBe(true);
      expect(q.p50).toBeLessThanOrEqual(q.p90);
      expect(q.p90).toBeLessThanOrEqual(q.p99);
      expect(q.p99).toBeLessThanOrEqual(q.max);
    }
    // Lateness is past the due time, never the whole delay: well under the 1 ms one-way delay at p50.
    expect(self.lateUs.p50).toBeLessThan(1000);
    // One turn in eight is watched; a sequential client has one read per turn.
    expect(self.arrivalLagUs.count).toBeGreaterThanOrEqual(10);
    expect(self.eventLoopDelayUs.count).toBeGreaterThan(0);
    c.disconnect();
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
  });

  it("each figure's sum (a Prometheus summary's _sum) never falls while its count grows, and is the values' sum", async () => {
    const c = proxyClient(proxy);
    await c.connect();
    proxy.resetStats();
    const figures = (s = proxy.stats().self!) => ({
      added: s.addedUs,
      late: s.lateUs,
      lag: s.arrivalLagUs,
      loop: s.eventLoopDelayUs,
      gc: s.gcPauseUs,
    });
    let before = figures();
    // Long enough for the 50 ms loop monitor to take several samples between reads.
    for (let round = 0; round < 12; round++) {
      const p = c.pipeline();
      for (let i = 0; i < 50; i++) p.get(`k${i}`);
      await p.exec();
      await sleep(20);
      const now = figures();
      for (const [name, q] of Object.entries(now)) {
        const was = before[name as keyof typeof before];
        expect(q.sum, `${name} round ${round}`).toBeGreaterThanOrEqual(was.sum);
        expect(q.count, name).toBeGreaterThanOrEqual(was.count);
        // Within the rounding of the mean to a thousandth of a microsecond.
        if (name !== 'loop' && q.count > 0) expect(Math.abs(q.sum - q.mean * q.count), name).toBeLessThanOrEqual(q.count * 0.0005 + 1e-6);
      }
      before = now;
    }
    expect(before.loop.count).toBeGreaterThan(0);
    c.disconnect();
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
  });

  it('counts a stall of the loop while bytes wait unread in addedUs, which lateUs cannot see', async () => {
    // redis-cli in its own process sends a second PING 100 ms after the first. This process
    // busy-waits 300 ms from the first reply on, so the second PING waits unread for ~200 ms; the
    // read then stamps it late and the delay line delivers it "on time".
    proxy.resetStats();
    const [host, port] = [proxy.address.split(':')[0]!, proxy.address.split(':')[1]!];
    const cli = spawn('redis-cli', ['-h', host, '-p', port, '-r', '2', '-i', '0.1', 'PING'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    cli.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await vi.waitUntil(() => out.includes('PONG'), { timeout: 5000, interval: 1 });
    const until = performance.now() + 300;
    while (performance.now() < until) {
      // the stall
    }
    await new Promise<void>((resolve) => cli.on('close', () => resolve()));
    expect(out.match(/PONG/g)).toHaveLength(2);
    const self = proxy.stats().self!;
    expect(self.addedUs.max).toBeGreaterThan(100_000);
    // The stalled PING's reply carries its request's wait into its round trip.
    expect(self.roundTripAddedUs.max).toBeGreaterThan(100_000);
    expect(self.lateUs.max).toBeLessThan(100_000);
    // The loop monitor's timer, or the scheduler's wake standing in for it, ran ~200 ms late or more.
    expect(self.eventLoopDelayUs.max).toBeGreaterThan(100_000);
  });

  it('an idle proxy (no connections) adds at most 0.1% of a core to its process', async () => {
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
    await sleep(SETTLE_MS);
    // What the idle proxy adds to the process: the test runner's own wakes cost about as much on a VM
    // where a wake costs 50-200 us of CPU, so the process's share alone measures the runner.
    let share = (await cpuShare(IDLE_WINDOW_MS)) - baselineShare;
    // One retry: a GC or the test runner's own work can land in the window on a busy machine.
    if (share > 0.001) share = (await cpuShare(IDLE_WINDOW_MS)) - baselineShare;
    console.log(`idle proxy: ${(share * 100).toFixed(3)}% of a core over the runner's own ${(baselineShare * 100).toFixed(3)}%`);
    expect(share).toBeLessThanOrEqual(0.001);
  });
});
