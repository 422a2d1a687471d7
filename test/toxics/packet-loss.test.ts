import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Toxiproxy, type ICreateToxicBody } from 'toxiproxy-node-client';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';

const run = promisify(execFile);
const BIG = 'b'.repeat(10_000);

let redis: PrivateRedis;
let server: ToxiproxyServer;
beforeAll(async () => {
  redis = await startPrivateRedis();
  server = await startToxiproxyServer({ api: '127.0.0.1:0', log: () => undefined, seed: 739 });
  const r = new Redis({ host: redis.host, port: redis.port });
  await r.set('big', BIG);
  await r.quit();
});
afterAll(async () => {
  await server?.close();
  await redis?.stop();
});

async function timedGets(port: number, n: number): Promise<{ ms: number[]; wrong: number }> {
  const c = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  await c.connect();
  const ms: number[] = [];
  let wrong = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    if ((await c.get('big')) !== BIG) wrong++;
    ms.push(performance.now() - t0);
  }
  c.disconnect();
  return { ms, wrong };
}

describe("toxiproxy's packet_loss on the loss model", () => {
  // A 10 kB reply is 7 segments; at loss_rate 0.05 about 30% of replies lose one. toxiproxy would
  // drop those chunks and the client would hang or read the next reply for this one; here every
  // reply is whole, and the late ones pay a resend: RACK (~0 on loopback) inside the reply, the
  // 200 ms probe/RTO floor for a lost last segment.
  it('through redis-rtt server: every reply whole and right; a lost last segment costs the 200 ms floor', async () => {
    const tp = new Toxiproxy(`http://${server.api}`);
    const proxy = await tp.createProxy({ name: 'pl', listen: '127.0.0.1:0', upstream: redis.address });
    const port = Number(proxy.listen.slice(proxy.listen.lastIndexOf(':') + 1));
    const t = await proxy.addToxic({ type: 'packet_loss', stream: 'downstream', attributes: { loss_rate: 0.05, correlation: 0.2 } } as unknown as ICreateToxicBody<unknown>);
    expect(t.attributes).toEqual({ loss_rate: 0.05, correlation: 0.2 });
    const { ms, wrong } = await timedGets(port, 150);
    expect(wrong).toBe(0);
    const slow = ms.filter((x) => x >= 199).length;
    // The last of 7 segments is lost in about 5% of replies (some 7 of 150); a chance of none is below 0.1%.
    expect(slow).toBeGreaterThan(0);
    expect(slow).toBeLessThan(30);
    expect(Math.max(...ms)).toBeLessThan(2000);
    await proxy.remove();
  }, 60_000);

  it('clamps loss_rate as toxiproxy does: below 0 is no loss', async () => {
    const tp = new Toxiproxy(`http://${server.api}`);
    const proxy = await tp.createProxy({ name: 'pl-clamp', listen: '127.0.0.1:0', upstream: redis.address });
    const port = Number(proxy.listen.slice(proxy.listen.lastIndexOf(':') + 1));
    await proxy.addToxic({ type: 'packet_loss', attributes: { loss_rate: -3 } } as unknown as ICreateToxicBody<unknown>);
    const { ms, wrong } = await timedGets(port, 50);
    expect(wrong).toBe(0);
    expect(Math.max(...ms)).toBeLessThan(150);
    await proxy.remove();
  });

  it('as a --toxic of the proxy: redis-cli reads a whole reply under loss', async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, toxics: [{ type: 'packet_loss', attributes: { loss_rate: 0.3 } }], seed: 3 });
    try {
      const cli = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(proxy.port), 'GET', 'big'], { timeout: 30_000 });
      expect(cli.stdout.trim()).toBe(BIG);
    } finally {
      await proxy.close();
    }
  }, 40_000);
});
