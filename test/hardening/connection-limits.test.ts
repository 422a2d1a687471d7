import net from 'node:net';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runClis } from './helpers/cli-proxy.js';

/** --idle-timeout in the first test, and how long the BLPOP connection must outlive it (several timeouts). */
const IDLE_TIMEOUT_MS = 300;
const BLOCKED_OUTLIVES_MS = 700;
/** With no --idle-timeout nothing closes an idle connection: nothing happens for this long (longer than the timeout above). */
const NOTHING_CLOSES_MS = 400;

function closed(s: net.Socket): Promise<number> {
  const t0 = Date.now();
  return new Promise((r) => s.once('close', () => r(Date.now() - t0)));
}

describe('--idle-timeout and --max-connections (both off by default)', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('an idle connection is closed; one waiting on BLPOP is not; active ones stay', async () => {
    const lines: string[] = [];
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      idleTimeoutMs: IDLE_TIMEOUT_MS,
      compensationUs: { up: 0, down: 0 },
      log: (l) => lines.push(l),
    });
    const idle = new Redis({ host: p.host, port: p.port, retryStrategy: () => null });
    const blocked = new Redis({ host: p.host, port: p.port, retryStrategy: () => null });
    try {
      await Promise.all([idle.ping(), blocked.ping()]);
      const idleClosed = new Promise<void>((r) => idle.once('end', () => r()));
      const pop = blocked.blpop('limits:q', 0);
      await idleClosed;
      expect(lines.some((l) => /idle for 300 ms \(--idle-timeout\)/.test(l))).toBe(true);
      // The BLPOP connection outlived several timeouts and still gets its reply.
      await sleep(BLOCKED_OUTLIVES_MS);
      const other = new Redis({ host: p.host, port: p.port });
      await other.lpush('limits:q', 'v');
      other.disconnect();
      const blockedClosed = new Promise<number>((r) => {
        const t0 = Date.now();
        blocked.once('end', () => r(Date.now() - t0));
      });
      expect(await pop).toEqual(['limits:q', 'v']);
      // Idle once its reply is out, it is closed about one timeout later, not never.
      const afterMs = await blockedClosed;
      expect(afterMs).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS - 20);
      expect(afterMs).toBeLessThan(IDLE_TIMEOUT_MS + 1000);
    } finally {
      idle.disconnect();
      blocked.disconnect();
      await p.close();
    }
  });

  it('a subscriber waiting for messages is not idle (as Redis\'s own timeout spares it); once it unsubscribes it is', async () => {
    const lines: string[] = [];
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      idleTimeoutMs: IDLE_TIMEOUT_MS,
      compensationUs: { up: 0, down: 0 },
      log: (l) => lines.push(l),
    });
    const sub = new Redis({ host: p.host, port: p.port, retryStrategy: () => null });
    const pub = new Redis({ host: redis.host, port: redis.port });
    try {
      const messages: string[] = [];
      sub.on('message', (_channel: string, m: string) => messages.push(m));
      await sub.subscribe('limits:ch');
      await sleep(BLOCKED_OUTLIVES_MS);
      expect(sub.status).toBe('ready');
      await pub.publish('limits:ch', 'hello');
      await vi.waitFor(() => expect(messages).toEqual(['hello']));
      const subClosed = new Promise<void>((r) => sub.once('end', () => r()));
      await sub.unsubscribe('limits:ch');
      await subClosed;
      expect(lines.filter((l) => /idle for 300 ms \(--idle-timeout\)/.test(l))).toHaveLength(1);
    } finally {
      sub.disconnect();
      pub.disconnect();
      await p.close();
    }
  });

  it('with no tap too: one waiting on BLPOP is not idle, and is closed once its reply is out', async () => {
    const lines: string[] = [];
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      tap: false,
      idleTimeoutMs: IDLE_TIMEOUT_MS,
      compensationUs: { up: 0, down: 0 },
      log: (l) => lines.push(l),
    });
    const idle = new Redis({ host: p.host, port: p.port, retryStrategy: () => null });
    const blocked = new Redis({ host: p.host, port: p.port, retryStrategy: () => null });
    const other = new Redis({ host: redis.host, port: redis.port });
    try {
      await Promise.all([idle.ping(), blocked.ping()]);
      const idleClosed = new Promise<void>((r) => idle.once('end', () => r()));
      const blockedClosed = new Promise<void>((r) => blocked.once('end', () => r()));
      const pop = blocked.blpop('limits:notap', 0);
      await idleClosed;
      await sleep(BLOCKED_OUTLIVES_MS);
      expect(blocked.status).toBe('ready');
      await other.lpush('limits:notap', 'v');
      expect(await pop).toEqual(['limits:notap', 'v']);
      await blockedClosed;
      expect(lines.filter((l) => /idle for 300 ms \(--idle-timeout\)/.test(l))).toHaveLength(2);
    } finally {
      idle.disconnect();
      blocked.disconnect();
      other.disconnect();
      await p.close();
    }
  });

  it('off by default: an idle connection stays open', async () => {
    const p = await startSingleNodeProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, log: () => undefined });
    const c = new Redis({ host: p.host, port: p.port });
    try {
      await c.ping();
      await sleep(NOTHING_CLOSES_MS);
      expect(await c.ping()).toBe('PONG');
    } finally {
      c.disconnect();
      await p.close();
    }
  });

  it('past --max-connections new clients are closed at once; the limit frees up when one leaves', async () => {
    const lines: string[] = [];
    const p = await startSingleNodeProxy({ upstream: redis.address, maxConnections: 2, compensationUs: { up: 0, down: 0 }, log: (l) => lines.push(l) });
    const a = new Redis({ host: p.host, port: p.port });
    const b = new Redis({ host: p.host, port: p.port });
    try {
      await Promise.all([a.ping(), b.ping()]);
      const third = net.connect({ host: p.host!, port: p.port! });
      third.on('error', () => undefined);
      third.write('PING\r\n');
      expect(await closed(third)).toBeLessThan(2000);
      expect(lines.some((l) => /--max-connections 2 reached/.test(l))).toBe(true);
      a.disconnect();
      await vi.waitUntil(() => p.stats().connections.active <= 1, { timeout: 3000, interval: 10 });
      const c = new Redis({ host: p.host, port: p.port });
      expect(await c.ping()).toBe('PONG');
      c.disconnect();
      expect(await b.ping()).toBe('PONG');
    } finally {
      a.disconnect();
      b.disconnect();
      await p.close();
    }
  });

  it('the CLI refuses bad values naming the flag', async () => {
    const cases = [['--idle-timeout', 'soon'], ['--max-connections', '-1'], ['--max-pending', '0'], ['--max-pending-total', 'x']] as const;
    const runs = await runClis(cases.map(([flag, value]) => ['proxy', '--upstream', redis.address, flag, value]));
    for (const [i, [flag]] of cases.entries()) {
      const r = runs[i]!;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(flag);
    }
  });
});
