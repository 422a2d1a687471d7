import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startProxy } from '../../src/cluster/start-proxy.js';

/**
 * A TCP relay to `to` that holds the first bytes from it (a TLS server's ServerHello) for
 * `holdMs` on each connection, then passes everything on: a TLS upstream whose handshake takes
 * `holdMs`, while the commands after it take Redis's own time.
 */
function slowHandshakeRelay(to: number, holdMs: number): Promise<net.Server> {
  const server = net.createServer((client) => {
    const redis = net.connect({ host: '127.0.0.1', port: to, noDelay: true });
    let held: Buffer[] | undefined = [];
    const timer = setTimeout(() => {
      for (const c of held ?? []) client.write(c);
      held = undefined;
    }, holdMs);
    redis.on('data', (c: Buffer) => (held ? held.push(c) : client.write(c)));
    client.on('data', (c: Buffer) => redis.write(c));
    const close = (): void => {
      clearTimeout(timer);
      client.destroy();
      redis.destroy();
    };
    for (const s of [client, redis]) s.on('close', close).on('error', close);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('upstream TLS: the dial is not the first command server time', () => {
  let redis: PrivateRedis;
  let relay: net.Server;
  const holdMs = 200;
  beforeAll(async () => {
    redis = await startPrivateRedis({ tls: true });
    relay = await slowHandshakeRelay(redis.port!, holdMs);
  });
  afterAll(async () => {
    await new Promise((r) => relay?.close(r));
    await redis?.stop();
  });

  it('a PING sent before the TLS handshake with Redis ended: serverUs from the handshake, clientUs with it', async () => {
    const port = (relay.address() as net.AddressInfo).port;
    const p = await startProxy({
      upstream: `127.0.0.1:${port}`,
      upstreamTls: { ca: redis.tls!.caFile },
      cluster: 'off',
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
    });
    try {
      const c = net.connect({ host: p.host, port: p.port!, noDelay: true });
      const reply = new Promise<string>((resolve, reject) => {
        c.once('data', (d) => resolve(d.toString()));
        c.once('error', reject);
      });
      c.write('*1\r\n$4\r\nPING\r\n');
      expect(await reply).toBe('+PONG\r\n');
      c.destroy();
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
      const ping = p.stats().commands.PING!;
      expect(ping.count).toBe(1);
      // The client waited for the handshake, Redis's time did not (it counted all of it before:
      // serverUs = clientUs). A stall of Redis or of this machine would add to both alike.
      expect(ping.clientUs.max).toBeGreaterThanOrEqual(holdMs * 1000);
      expect(ping.clientUs.max - ping.serverUs.max).toBeGreaterThanOrEqual((holdMs / 2) * 1000);
      expect(p.tlsStats!().upstreamHandshakes).toBe(1);
    } finally {
      await p.close();
    }
  });
});
