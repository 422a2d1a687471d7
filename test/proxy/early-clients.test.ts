/**
 * A client that dials --listen while the proxy is still starting (an app retrying its pool, a
 * container's health check, `redis-benchmark -c 1000` run at once) is refused by the kernel until
 * start() resolves, as by a Redis that is still starting: it is never accepted onto the bare link,
 * closed by the hop measurement, or zeroed from the counters with the warm-up. The start-up's own
 * connections go through a private listener of the same kind (start-up-listener.ts).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Endpoint } from '../../src/endpoint.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.js';
import { closedPort } from './helpers.js';

const DOWN_US = 3000;
const PING = '*1\r\n$4\r\nPING\r\n';
const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-early-'));
let redis: PrivateRedis;

beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One connection attempt: the socket once connected, or the errno that refused it. */
function dial(at: Endpoint): Promise<net.Socket | string> {
  return new Promise((resolve) => {
    const s = at.kind === 'unix' ? net.connect({ path: at.path }) : net.connect({ host: at.host, port: at.port });
    s.once('connect', () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** PING on a connected socket: the reply and how long it took. */
async function ping(s: net.Socket): Promise<{ reply: string; ms: number }> {
  const t0 = performance.now();
  const reply = new Promise<string>((resolve) => {
    let got = '';
    s.on('data', (c: Buffer) => {
      got += c.toString('latin1');
      if (got.endsWith('\r\n')) resolve(got);
    });
  });
  s.write(PING);
  return { reply: await reply, ms: performance.now() - t0 };
}

describe('clients that dial before the proxy is ready', () => {
  for (const kind of ['tcp', 'unix'] as const) {
    it(`${kind}: refused until start() resolves, then on the configured link and in the counters`, async () => {
      const at: Endpoint = kind === 'tcp' ? { kind, host: '127.0.0.1', port: await closedPort() } : { kind, path: join(dir, 'p.sock') };
      let started = false;
      // Auto compensation and a warm-up: both start-up steps make connections of their own.
      const starting = startSingleNodeProxy({
        upstream: redis.address,
        listen: at.kind === 'tcp' ? `${at.host}:${at.port}` : at.path,
        link: { downUs: DOWN_US },
        warmUpConnections: 200,
        log: () => {},
      }).then((p) => {
        started = true;
        return p;
      });
      const refusals = new Set<string>();
      let early: net.Socket | undefined;
      let startedAtConnect = false;
      try {
        await vi.waitFor(
          async () => {
            const r = await dial(at);
            if (typeof r === 'string') {
              refusals.add(r);
              throw new Error(`not yet: ${r}`);
            }
            early = r;
            startedAtConnect = started;
          },
          { timeout: 15_000, interval: 1 },
        );
        expect(startedAtConnect).toBe(true);
        const p = await starting;
        try {
          const { reply, ms } = await ping(early!);
          expect(reply).toBe('+PONG\r\n');
          // On the configured link: the reply waited for the down delay (less what compensation takes off).
          expect(ms).toBeGreaterThanOrEqual(DOWN_US / 1000 - 0.1);
          expect(p.stats().connections.total).toBe(1);
          expect(p.stats().totals.commands).toBe(1);
        } finally {
          early?.destroy();
          await p.close();
        }
        // The dials before the listener was up were refused, as by a port (or path) nobody listens on.
        expect(refusals.size).toBeGreaterThan(0);
        for (const code of refusals) expect(kind === 'tcp' ? ['ECONNREFUSED'] : ['ENOENT', 'ECONNREFUSED']).toContain(code);
      } finally {
        if (!started) await starting.then((p) => p.close()).catch(() => {});
      }
    });
  }

  it("leaves no start-up socket file behind a unix listener's proxy", async () => {
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith('redis-rtt-start-'));
    const p = await startSingleNodeProxy({ upstream: redis.address, listen: join(dir, 'q.sock'), warmUpConnections: 10, log: () => {} });
    await p.close();
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith('redis-rtt-start-'))).toEqual(before);
  });
});
