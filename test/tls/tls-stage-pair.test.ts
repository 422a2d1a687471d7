import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseEndpoint } from '../../src/endpoint.js';
import { LinkState } from '../../src/link/link-state.js';
import { ProxyListener } from '../../src/proxy/listener.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import type { ByteStageFactory } from '../../src/stage/types.js';
import { loadListenTls } from '../../src/tls/options.js';
import { generateListenPair } from '../../src/tls/setup.js';

const passThrough = (name: string, direction: 'up' | 'down'): ByteStageFactory => ({
  kind: 'byte',
  name,
  direction,
  create: (_conn, next) => ({
    pendingBytes: 0,
    push: (c, t) => next.push(c, t),
    end: (k, t) => next.end(k, t),
    drain: () => undefined,
    destroy: () => undefined,
  }),
});

describe('client TLS is a stage pair in the connection chain', () => {
  let redis: PrivateRedis;
  let pair: ReturnType<typeof generateListenPair>;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    pair = generateListenPair();
  });
  afterAll(async () => {
    await redis?.stop();
    pair?.cleanup();
  });

  async function withListener<T>(rttUs: number, body: (l: ProxyListener) => Promise<T>): Promise<T> {
    const listener = new ProxyListener({
      upstream: parseEndpoint(redis.address, '--upstream'),
      listen: parseEndpoint('127.0.0.1:0', '--listen'),
      link: new LinkState({ rttUs }),
      taps: undefined,
      highWaterBytes: 1 << 20,
      handshake: true,
      connectTimeoutMs: 3000,
      argSizes: false,
      log: () => undefined,
      listenTls: loadListenTls({ cert: pair.certFile, key: pair.keyFile }),
    });
    await listener.listen();
    try {
      return await body(listener);
    } finally {
      await listener.close();
    }
  }

  /** Connects over TLS 1.3, sends PING and resolves with the socket once PONG came, and how long it took. */
  function ping(port: number): Promise<{ socket: tls.TLSSocket; ms: number }> {
    const startMs = performance.now();
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca: readFileSync(pair.caFile), servername: 'localhost' }, () => socket.write('PING\r\n'));
      socket.once('data', (d) => (d.toString() === '+PONG\r\n' ? resolve({ socket, ms: performance.now() - startMs }) : reject(new Error(d.toString()))));
      socket.once('error', reject);
    });
  }

  it('one link per direction, TLS on the client side of everything but the link; byte stages between', async () => {
    await withListener(0, async (l) => {
      l.stages.addStage(passThrough('up-stage', 'up'));
      l.stages.addStage(passThrough('down-stage', 'down'));
      const { socket } = await ping(l.port!);
      const [conn] = l.connections();
      expect(conn!.stageNames()).toEqual({ up: ['link', 'tls', 'up-stage'], down: ['down-stage', 'tls', 'link'], frame: [] });
      l.stages.addStage(passThrough('first-down', 'down'), 0);
      expect(conn!.stageNames().down).toEqual(['first-down', 'down-stage', 'tls', 'link']);
      socket.destroy();
    });
  });

  it('the link carries the TLS bytes: a TLS 1.3 PING pays the TCP handshake, the TLS one and its own round trip', async () => {
    const rttUs = 30_000;
    await withListener(rttUs, async (l) => {
      const { socket, ms } = await ping(l.port!);
      // A lower bound only: a loaded machine adds time, never takes it away.
      expect(ms).toBeGreaterThanOrEqual((3 * rttUs) / 1000 - 1);
      socket.destroy();
      await vi.waitUntil(() => l.connectionCount === 0, { timeout: 3000, interval: 10 });
    });
  });

  it("a client's RST crosses the link behind its data: a SET in flight still reaches Redis, then the connection closes", async () => {
    await withListener(40_000, async (l) => {
      const raw = net.connect({ host: '127.0.0.1', port: l.port! });
      const secure = tls.connect({ socket: raw, ca: readFileSync(pair.caFile), servername: 'localhost' });
      await new Promise((resolve) => secure.once('secureConnect', resolve));
      secure.write('SET tls:rst:key sent\r\n');
      // Out of the client before its RST, not yet across the 20 ms up link.
      await new Promise((resolve) => setTimeout(resolve, 5));
      raw.resetAndDestroy();
      await vi.waitUntil(() => l.connectionCount === 0, { timeout: 3000, interval: 10 });
      const direct = new Redis({ host: redis.host, port: redis.port, lazyConnect: true });
      await direct.connect();
      expect(await direct.get('tls:rst:key')).toBe('sent');
      direct.disconnect();
    });
  });
});
