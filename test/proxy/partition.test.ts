import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeClock, monotonicNs } from '../../src/clock.js';
import { ConfigError } from '../../src/errors.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { firstResendAfterNs, rtoNs, TCP_TIMEOUT_INIT_NS } from '../../src/link/rto.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { openEvents } from '../dashboard/events-client.js';
import { proxyClient } from './helpers.js';

const run = promisify(execFile);
const RTT_US = 1000;
const MS = 1e6;
const S = 1e9;
/** The slack a loaded machine adds to a reply that the model times to the millisecond. */
const SLACK_MS = 150;

async function putLink(proxy: RedisRttProxy, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`http://${proxy.controlAddress}/link`, { method: 'PUT', body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** A partition through the real proxy: real clients wait for TCP's resend after the heal, not for the heal. */
describe('partitions that heal, with real clients', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: RTT_US }, compensationUs: { up: 0, down: 0 }, control: '127.0.0.1:0' });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });
  beforeEach(async () => {
    // One partition at a time: wait for the last one to end.
    await vi.waitUntil(() => !proxy.stats().partition?.active, { timeout: 10_000, interval: 20 });
    // And for the last test's connections to close: one still closing would be in the next partition too.
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 10_000, interval: 20 });
  });

  it('ioredis: a GET sent in a 1 s partition is answered at the RTO backoff retry after the heal (about 1.61 s), not at 1 s', async () => {
    const c = proxyClient(proxy);
    await c.connect();
    await c.set('k', 'v');
    const { status, json } = await putLink(proxy, { partition: '1s' });
    expect(status).toBe(200);
    // The answer says the partition holds, beside the link.
    expect(json.partition).toMatchObject({ active: true, durationMs: 1000, then: 'heal' });
    const sentNs = monotonicNs();
    expect(await c.get('k')).toBe('v');
    const tookMs = (monotonicNs() - sentNs) / MS;
    // RTO = 1 ms + 200 ms; the probe, then the RTO doubling: 201, 402, 804, 1608 ms after the loss: the fourth is the first after the heal.
    const modelMs = firstResendAfterNs(rtoNs(RTT_US * 1000, 0), 1000 * MS).atNs / MS + RTT_US / 1000;
    expect(modelMs).toBe(1609);
    expect(tookMs).toBeGreaterThan(modelMs - 20);
    expect(tookMs).toBeLessThan(modelMs + SLACK_MS);
    // The connection carried on: no reconnect, the next command at the link's RTT.
    expect(c.status).toBe('ready');
    const again = monotonicNs();
    await c.ping();
    expect((monotonicNs() - again) / MS).toBeLessThan(SLACK_MS);
    expect(proxy.stats().partition).toMatchObject({ active: false, durationMs: 1000, then: 'heal', resetConnections: 0 });
    c.disconnect();
  });

  it('redis-py connecting during the partition is accepted, and its first reply waits for its SYN retry after the heal (1 s)', async () => {
    await putLink(proxy, { partition: '800ms' });
    const script = [
      'import redis, time',
      `r = redis.Redis(host='${proxy.host}', port=${proxy.port}, socket_timeout=5)`,
      't = time.monotonic()',
      'assert r.ping()',
      'print(round((time.monotonic() - t) * 1000))',
    ].join('\n');
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { timeout: 20_000 });
    const tookMs = Number(stdout.trim());
    // Its SYN is taken lost at accept; the retry 1 s later is after the 800 ms heal; then the handshake's RTT and the PING's.
    const modelMs = TCP_TIMEOUT_INIT_NS / MS + 2 * (RTT_US / 1000);
    expect(tookMs).toBeGreaterThan(modelMs - 120);
    expect(tookMs).toBeLessThan(modelMs + SLACK_MS + 100);
  });

  it('then: reset resets the connections that lost bytes at the end; ioredis sees the close, an idle connection and a redis-cli held at connect carry on', async () => {
    const c = proxyClient(proxy);
    // The reset is what this test waits for; ioredis emits it as an error too.
    c.on('error', () => {});
    await c.connect();
    await c.set('k', 'v');
    const idle = proxyClient(proxy);
    await idle.connect();
    await putLink(proxy, { partition: '1s', then: 'reset' });
    const startedNs = monotonicNs();
    const closed = new Promise<number>((resolve) => c.once('close', () => resolve((monotonicNs() - startedNs) / MS)));
    const cli = run('redis-cli', ['-h', proxy.host!, '-p', String(proxy.port), 'GET', 'k'], { timeout: 20_000 }).then(
      (r) => r.stdout + r.stderr,
      (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`,
    );
    await expect(c.get('k')).rejects.toThrow();
    const closedMs = await closed;
    expect(closedMs).toBeGreaterThan(950);
    expect(closedMs).toBeLessThan(1000 + SLACK_MS);
    // The idle connection lost nothing: TCP has no reason to give it up.
    expect(await idle.ping()).toBe('PONG');
    // redis-cli connected during the partition: its SYN retry (1 s) is after the heal, so it carries on.
    expect((await cli).trim()).toBe('v');
    expect(proxy.stats().partition, JSON.stringify(proxy.stats().partition)).toMatchObject({ then: 'reset', resetConnections: 1 });
    idle.disconnect();
  });

  it('refuses a bad partition whole, naming the field, and leaves the live link unchanged', async () => {
    const before = proxy.link();
    const zero = await putLink(proxy, { rttUs: 50_000, partition: '0s' });
    expect(zero.status).toBe(400);
    expect(String(zero.json.error)).toMatch(/^partition: .*above 0/);
    const end = await putLink(proxy, { rttUs: 50_000, partition: '1s', then: 'later' });
    expect(String(end.json.error)).toMatch(/^then: /);
    expect(proxy.link()).toEqual(before);
    expect(proxy.stats().partition?.active).toBe(false);
  });

  // Held for a SYN retry after the heal however long it took: a client that connected early in a 10 min partition
  // waited 17 min for a retry Linux never sends (its connect fails at 127 s after 6 retries).
  it('a client accepted in a partition that outlasts its SYN retries is reset at 127 s; one healed by the 6th retry carries on', async () => {
    const clock = new FakeClock(1000 * S);
    const scheduler = new ManualScheduler(clock);
    const lines: string[] = [];
    const log = (l: string): number => lines.push(l);
    const p = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: RTT_US }, compensationUs: { up: 0, down: 0 }, scheduler, log });
    const connect = async (): Promise<net.Socket> => {
      const before = p.stats().connections.total;
      const s = net.connect({ host: p.host!, port: p.port! });
      s.on('error', () => undefined);
      await vi.waitUntil(() => p.stats().connections.total === before + 1, { timeout: 5000, interval: 5 });
      return s;
    };
    try {
      const t0 = clock.nowNs();
      p.setLink({ partition: '100s' });
      const early = await connect();
      let closed = false;
      early.once('close', () => (closed = true));
      scheduler.runUntil(t0 + 126.9 * S);
      expect(early.destroyed).toBe(false);
      scheduler.runUntil(t0 + 127 * S);
      await vi.waitUntil(() => closed, { timeout: 5000, interval: 5 });
      expect(lines).toContain('conn 1: accepted in the partition, its SYN retries ran out before the heal: reset, as its connect would have timed out');

      // Healed by 60 s: its 6th retry (63 s) gets through, and it is answered.
      const t1 = clock.nowNs();
      p.setLink({ partition: '60s' });
      const late = await connect();
      let reply = '';
      late.on('data', (d: Buffer) => (reply += d.toString()));
      late.write('PING\r\n');
      scheduler.runUntil(t1 + 130 * S);
      await vi.waitFor(
        () => {
          scheduler.runUntil(clock.nowNs() + 10 * MS);
          expect(reply).toBe('+PONG\r\n');
        },
        { timeout: 5000, interval: 10 },
      );
      late.destroy();
    } finally {
      await p.close();
    }
  });

  // Reset at the heal: in a 1 h partition a sender that lost bytes at its start was reset at 60 min, not at 15.4.
  it('a partition longer than Linux retransmits resets a connection that lost bytes 924.6 s after its loss, once', async () => {
    const clock = new FakeClock(1000 * S);
    const scheduler = new ManualScheduler(clock);
    const lines: string[] = [];
    const log = (l: string): number => lines.push(l);
    const p = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: RTT_US }, compensationUs: { up: 0, down: 0 }, scheduler, log });
    const s = net.connect({ host: p.host!, port: p.port! });
    s.on('error', () => undefined);
    let closed = false;
    s.once('close', () => (closed = true));
    try {
      await vi.waitUntil(() => p.stats().connections.active === 1, { timeout: 5000, interval: 5 });
      scheduler.runUntil(clock.nowNs() + 10 * MS);
      const t0 = clock.nowNs();
      p.setLink({ partition: '1000s' });
      s.write('PING\r\n');
      await vi.waitUntil(() => p.stats().totals.commands === 1, { timeout: 5000, interval: 5 });
      scheduler.runUntil(t0 + 924.5 * S);
      expect(closed).toBe(false);
      scheduler.runUntil(t0 + 924.7 * S);
      await vi.waitUntil(() => closed, { timeout: 5000, interval: 5 });
      expect(lines).toContain('partition: reset 1 connection(s) whose sender gave up (tcp_retries2, 924.6 s)');
      scheduler.runUntil(t0 + 1001 * S);
      expect(p.stats().partition).toMatchObject({ active: false, resetConnections: 1 });
    } finally {
      s.destroy();
      await p.close();
    }
  });

  // It healed at 900 s and held the PING for its next try, 925.8 s after the loss, which Linux never sends: it gives up at 924.6 s.
  it('a partition that heals after 900 s resets a connection that lost bytes when its sender gives up (924.6 s), before its next try', async () => {
    const clock = new FakeClock(1000 * S);
    const scheduler = new ManualScheduler(clock);
    const lines: string[] = [];
    const log = (l: string): number => lines.push(l);
    const p = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: RTT_US }, compensationUs: { up: 0, down: 0 }, scheduler, log });
    const s = net.connect({ host: p.host!, port: p.port! });
    s.on('error', () => undefined);
    let closed = false;
    s.once('close', () => (closed = true));
    try {
      await vi.waitUntil(() => p.stats().connections.active === 1, { timeout: 5000, interval: 5 });
      scheduler.runUntil(clock.nowNs() + 10 * MS);
      const t0 = clock.nowNs();
      p.setLink({ partition: '900s' });
      s.write('PING\r\n');
      await vi.waitUntil(() => p.stats().totals.commands === 1, { timeout: 5000, interval: 5 });
      expect(firstResendAfterNs(rtoNs(RTT_US * 1000, 0), 900 * S).atNs / S).toBeCloseTo(925.824, 6);
      scheduler.runUntil(t0 + 924.5 * S);
      expect(closed).toBe(false);
      expect(p.stats().partition).toMatchObject({ active: false, resetConnections: 0 });
      scheduler.runUntil(t0 + 924.7 * S);
      await vi.waitUntil(() => closed, { timeout: 5000, interval: 5 });
      expect(lines).toContain('partition: reset 1 connection(s) whose sender gave up (tcp_retries2, 924.6 s)');
      expect(p.stats().partition).toMatchObject({ active: false, resetConnections: 1 });
    } finally {
      s.destroy();
      await p.close();
    }
  });

  // Timed from when its timer fired, it ran 300 ms past the schedule's end (active at 1.6 s here).
  it("a schedule's partition step that fires late starts at the step's time, and ends when the schedule says", async () => {
    const clock = new FakeClock(1000 * S);
    const scheduler = new ManualScheduler(clock);
    const linkSchedule = [{ at: '1s', partition: '500ms' }];
    const link = { rttUs: RTT_US };
    const p = await startSingleNodeProxy({ upstream: redis.address, link, compensationUs: { up: 0, down: 0 }, scheduler, log: () => 0, linkSchedule });
    try {
      const originNs = clock.nowNs() - p.stats().timeline!.elapsedMs * MS;
      // The proxy was held up: the step's timer fires 300 ms after its time.
      clock.setNs(originNs + 1.3 * S);
      scheduler.runUntil(originNs + 1.3 * S);
      expect(p.stats().partition).toMatchObject({ active: true, startedMsAgo: 300, durationMs: 500 });
      scheduler.runUntil(originNs + 1.5 * S);
      expect(p.stats().partition).toMatchObject({ active: false, startedMsAgo: 500 });
    } finally {
      await p.close();
    }
  });

  // /metrics and the dashboard had no word of a partition: a graph of a test run could not show when the link was cut.
  it('shows in /metrics (partition_active) and in the dashboard\'s events while it holds, and 0 after the heal', async () => {
    const clock = new FakeClock(1000 * S);
    const scheduler = new ManualScheduler(clock);
    const p = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: RTT_US }, compensationUs: { up: 0, down: 0 }, control: '127.0.0.1:0', scheduler, log: () => undefined });
    const metrics = async (): Promise<string> => (await fetch(`http://${p.controlAddress}/metrics`)).text();
    const events = await openEvents(p.controlAddress!);
    try {
      expect(await metrics()).not.toMatch(/partition/);
      const t0 = clock.nowNs();
      p.setLink({ partition: '10s', then: 'reset' });
      expect(await metrics()).toMatch(/^redis_rtt_partition_active 1$/m);
      const held = await events.next((e) => e.partition?.active === true);
      expect(held.partition).toMatchObject({ durationMs: 10_000, then: 'reset', resetConnections: 0 });
      scheduler.runUntil(t0 + 10 * S);
      const text = await metrics();
      expect(text).toMatch(/^redis_rtt_partition_active 0$/m);
      expect(text).toMatch(/^redis_rtt_partition_reset_connections 0$/m);
      expect((await events.next((e) => e.partition?.active === false)).partition?.durationMs).toBe(10_000);
    } finally {
      events.req.destroy();
      await p.close();
    }
  });

  it("a schedule's partition step while a PUT /link partition runs is skipped whole, counted and logged", async () => {
    const clock = new FakeClock(1000 * S);
    const scheduler = new ManualScheduler(clock);
    const lines: string[] = [];
    const linkSchedule = [{ at: '1s', link: { rttUs: 5000 }, partition: '1s' }];
    const log = (l: string): number => lines.push(l);
    const options = { upstream: redis.address, link: { rttUs: RTT_US }, compensationUs: { up: 0, down: 0 }, linkSchedule, scheduler, log };
    const p = await startSingleNodeProxy(options);
    try {
      const t0 = clock.nowNs();
      p.setLink({ partition: '10s' });
      scheduler.runUntil(t0 + 1 * S);
      expect(p.link()).toMatchObject({ upUs: RTT_US / 2, downUs: RTT_US / 2 });
      expect(p.stats().timeline?.schedule).toMatchObject({ step: 0, skipped: 1 });
      expect(lines).toContainEqual(expect.stringMatching(/^--link-schedule steps\[0\] skipped: partition: .*no partition while one runs/));
    } finally {
      await p.close();
    }
  });

  it('refuses a partition on a closed proxy', async () => {
    const other = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: RTT_US }, compensationUs: { up: 0, down: 0 } });
    await other.close();
    expect(() => other.setLink({ rttUs: 5000, partition: '1s' })).toThrow(ConfigError);
    expect(() => other.setLink({ partition: '1s' })).toThrow('partition: invalid value "1s"; expected a proxy that is running (this one is closed)');
    expect(other.link().upUs + other.link().downUs).toBe(RTT_US);
  });
});
