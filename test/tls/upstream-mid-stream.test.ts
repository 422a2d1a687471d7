import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startProxy } from '../../src/cluster/start-proxy.js';

/** A TCP relay to `to` that keeps its latest proxy-side socket, to break the TLS stream from the middle. */
async function relay(to: number): Promise<{ server: net.Server; port: number; latest(): net.Socket }> {
  let latest: net.Socket | undefined;
  const server = net.createServer((c) => {
    const r = net.connect({ host: '127.0.0.1', port: to, noDelay: true });
    c.pipe(r);
    r.pipe(c);
    for (const s of [c, r]) s.on('error', () => undefined);
    c.on('close', () => r.destroy());
    latest = c;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as net.AddressInfo).port, latest: () => latest! };
}

describe('upstream TLS broken mid-stream', () => {
  let redis: PrivateRedis;
  let middle: Awaited<ReturnType<typeof relay>>;
  beforeAll(async () => {
    redis = await startPrivateRedis({ tls: true });
    middle = await relay(redis.port!);
  });
  afterAll(async () => {
    await new Promise((r) => middle?.server.close(r));
    await redis?.stop();
  });

  /** A client through the proxy with its PONG in hand, and how its connection ends. */
  async function afterPong(p: { host?: string; port?: number }): Promise<{ got: () => string; closed: Promise<string>; c: net.Socket }> {
    const c = net.connect({ host: p.host, port: p.port!, noDelay: true });
    let got = '';
    c.on('data', (d: Buffer) => (got += d.toString()));
    const closed = new Promise<string>((resolve) => {
      c.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      c.once('end', () => resolve('end'));
    });
    c.write('*1\r\n$4\r\nPING\r\n');
    await vi.waitUntil(() => got === '+PONG\r\n', { timeout: 3000, interval: 5 });
    return { got: () => got, closed, c };
  }

  it("Redis's side ends (a FIN, no close_notify) or resets: the client's connection ends the same way, after its replies", async () => {
    const logs: string[] = [];
    const p = await startProxy({ upstream: `127.0.0.1:${middle.port}`, upstreamTls: { ca: redis.tls!.caFile }, cluster: 'off', log: (l) => logs.push(l) });
    try {
      const fin = await afterPong(p);
      middle.latest().end();
      expect(await fin.closed).toBe('end');
      const rst = await afterPong(p);
      middle.latest().resetAndDestroy();
      expect(await rst.closed).toBe('ECONNRESET');
      expect([fin.got(), rst.got()]).toEqual(['+PONG\r\n', '+PONG\r\n']);
      await vi.waitUntil(() => logs.some((l) => /^conn \d+: upstream ECONNRESET$/.test(l)), { timeout: 3000, interval: 5 });
      fin.c.destroy();
    } finally {
      await p.close();
    }
  });

  it('a bad TLS record from Redis: the client has the replies before it, then a reset; the log names the TLS error and its reason', async () => {
    const logs: string[] = [];
    const p = await startProxy({ upstream: `127.0.0.1:${middle.port}`, upstreamTls: { ca: redis.tls!.caFile }, cluster: 'off', log: (l) => logs.push(l) });
    try {
      const { got, closed, c } = await afterPong(p);
      // An application-data record whose MAC cannot check out.
      middle.latest().write(Buffer.concat([Buffer.from([0x17, 0x03, 0x03, 0x00, 0x20]), Buffer.alloc(32, 0x78)]));
      expect(await closed).toBe('ECONNRESET');
      expect(got()).toBe('+PONG\r\n');
      await vi.waitUntil(() => logs.some((l) => l.includes(': upstream ERR_SSL_')), { timeout: 3000, interval: 5 });
      expect(logs.find((l) => l.includes(': upstream ERR_SSL_'))).toMatch(/^conn \d+: upstream ERR_SSL_\w+ \(.*\w.*\)$/);
      c.destroy();
    } finally {
      await p.close();
    }
  });
});
