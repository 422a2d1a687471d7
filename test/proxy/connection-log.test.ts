import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { ConnectionLog } from '../../src/proxy/connection-log.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis } from '../../src/redis/index.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ConnectionLog: each kind of connection line at most once a second', () => {
  it('writes the first of a kind, counts the rest of the second in one line after it, and other kinds apart', () => {
    vi.useFakeTimers();
    const clock = new FakeClock();
    const lines: string[] = [];
    const log = new ConnectionLog(clock, (l) => lines.push(l));
    for (let id = 1; id <= 500; id++) log.line(`conn ${id}: client ECONNRESET`);
    log.line('conn 501: upstream 127.0.0.1:1 failed: ECONNREFUSED');
    expect(lines).toEqual(['conn 1: client ECONNRESET', 'conn 501: upstream 127.0.0.1:1 failed: ECONNREFUSED']);
    clock.advanceNs(999e6);
    vi.advanceTimersByTime(999);
    expect(lines).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(lines.slice(2)).toEqual(['499 more connections: client ECONNRESET']);
    // A second later the kind is written again, with nothing left out to say.
    clock.advanceNs(1e6);
    log.line('conn 502: client ECONNRESET');
    log.line('conn 503: client ECONNRESET');
    expect(lines.slice(3)).toEqual(['conn 502: client ECONNRESET']);
    log.close();
    expect(lines.slice(4)).toEqual(['1 more connection: client ECONNRESET']);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('a burst of clients that reset', () => {
  it('through a real proxy: a few lines on the log, and the count of all of them', async () => {
    const redis = await startPrivateRedis();
    const logs: string[] = [];
    const proxy = await startSingleNodeProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, log: (l) => logs.push(l) });
    const CLIENTS = 100;
    try {
      const sockets = await Promise.all(
        Array.from({ length: CLIENTS }, () => {
          const s = net.connect({ host: proxy.host!, port: proxy.port! });
          s.on('error', () => undefined);
          return new Promise<net.Socket>((resolve) => s.once('connect', () => resolve(s)));
        }),
      );
      await vi.waitFor(() => expect(proxy.stats().connections.active).toBe(CLIENTS));
      for (const s of sockets) s.resetAndDestroy();
      await vi.waitFor(() => expect(proxy.stats().connections.active).toBe(0));
    } finally {
      await proxy.close();
      await redis.stop();
    }
    const resets = logs.filter((l) => l.includes('client ECONNRESET'));
    expect(resets.length).toBeLessThanOrEqual(3);
    const counted = resets.reduce((n, l) => n + (/^conn \d+: /.test(l) ? 1 : Number(/^(\d+) more connections?: /.exec(l)?.[1])), 0);
    expect(counted).toBe(CLIENTS);
  });
});
