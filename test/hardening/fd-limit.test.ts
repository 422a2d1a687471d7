import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fdLimitWarning } from '../../src/proxy/fd-limit.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startCliProxy } from './helpers/cli-proxy.js';

type Outcome = 'pong' | 'reset' | 'hung';

/**
 * One client: PING, then PONG, a reset/close, or nothing within `timeoutMs`. A served client keeps
 * its connection open (closed by the caller), so a burst really holds that many at once.
 */
function pingOnce(host: string, port: number, timeoutMs: number, open: net.Socket[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    open.push(s);
    const timer = setTimeout(() => done('hung'), timeoutMs);
    let settled = false;
    const done = (o: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    s.on('connect', () => s.write('*1\r\n$4\r\nPING\r\n'));
    s.on('data', (d: Buffer) => (d.toString() === '+PONG\r\n' ? done('pong') : undefined));
    s.on('error', () => done('reset'));
    s.on('close', () => done('reset'));
  });
}

describe("the proxy's own open-files limit", () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('the warning says how many clients fit, and nothing when the limit is generous', () => {
    expect(fdLimitWarning(1024)).toMatch(/ulimit -n\) is 1024: room for about 480 clients at once \(2 descriptors each\)/);
    expect(fdLimitWarning(20_000)).toBeUndefined();
    expect(fdLimitWarning(Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('past the limit: warned at start, excess clients reset at once (none hang), and it keeps serving', { timeout: 60_000 }, async () => {
    const p = await startCliProxy(['--upstream', redis.address, '--control', '127.0.0.1:0', '--rtt', '1ms'], { openFiles: 256 });
    try {
      expect(p.stderr()).toMatch(/warning: the open-files limit \(ulimit -n\) is 256: room for about 96 clients/);
      const open: net.Socket[] = [];
      const outcomes = await Promise.all(Array.from({ length: 400 }, () => pingOnce(p.host, p.port, 10_000, open)));
      open.forEach((s) => s.destroy());
      const count = (o: Outcome): number => outcomes.filter((x) => x === o).length;
      expect(count('hung')).toBe(0);
      expect(count('pong')).toBeGreaterThan(0);
      expect(count('reset')).toBeGreaterThan(0);
      // Once the burst is gone, every new client is served again.
      // The control endpoint shares the open-files limit: while the burst's descriptors are still
      // being released, libuv answers an accept it has no descriptor for with a reset, so a failed
      // poll is retried rather than taken as the proxy's failure.
      const activeNow = async (): Promise<number> => {
        try {
          return (await p.stats()).connections.active;
        } catch {
          return Number.POSITIVE_INFINITY;
        }
      };
      await expect.poll(activeNow, { timeout: 10_000, interval: 50 }).toBe(0);
      const again: net.Socket[] = [];
      const after = await Promise.all(Array.from({ length: 20 }, () => pingOnce(p.host, p.port, 10_000, again)));
      again.forEach((s) => s.destroy());
      expect(after.every((o) => o === 'pong')).toBe(true);
      console.log(`[figure] ulimit -n 256, 400 clients at once: ${count('pong')} served, ${count('reset')} reset on connect, 0 hung; then 20/20 served`);
    } finally {
      expect((await p.stop()).code).toBe(0);
    }
  });
});
