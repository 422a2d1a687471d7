import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import type { RedisRttProxy } from '../../src/proxy/index.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { newTlsCounters } from '../../src/tls/counters.js';
import { generateListenPair } from '../../src/tls/setup.js';

const run = promisify(execFile);

async function withProxy<T>(opts: Parameters<typeof startProxy>[0], body: (p: RedisRttProxy, logs: string[]) => Promise<T>): Promise<T> {
  const logs: string[] = [];
  const p = await startProxy({ compensationUs: { up: 0, down: 0 }, log: (l) => logs.push(l), ...opts });
  try {
    return await body(p, logs);
  } finally {
    await p.close();
  }
}

describe('upstream TLS (startPrivateRedis({ tls: true }))', () => {
  let redis: PrivateRedis;
  let plain: PrivateRedis;
  beforeAll(async () => {
    [redis, plain] = await Promise.all([startPrivateRedis({ tls: true }), startPrivateRedis()]);
  });
  afterAll(async () => {
    await Promise.all([redis?.stop(), plain?.stop()]);
  });

  it('serves TLS only: a plaintext PING to its port gets no PONG', async () => {
    expect(redis.tls?.caFile).toMatch(/ca\.crt$/);
    const { stdout } = await run('redis-cli', ['--tls', '--cacert', redis.tls!.caFile, '-p', String(redis.port), 'PING']);
    expect(stdout.trim()).toBe('PONG');
    const r = await run('redis-cli', ['-p', String(redis.port), 'PING']).then((x) => x.stdout, (e: { stdout: string }) => e.stdout);
    expect(r.trim()).not.toBe('PONG');
  });

  it('plaintext ioredis client through --upstream-tls; the tap counts commands and round trips', async () => {
    await withProxy({ upstream: redis.address, upstreamTls: { ca: redis.tls!.caFile } }, async (p) => {
      const c = new Redis({ host: p.host, port: p.port, lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0 });
      await c.connect();
      await c.set('k', 'v');
      expect(await c.get('k')).toBe('v');
      // Upstream TLS bytes, read from the live TCP socket under the TLSSocket: more than the plaintext.
      const live = p.stats();
      expect(live.tls!.upstreamWireBytesUp).toBeGreaterThan(live.totals.bytesUp);
      expect(live.tls!.upstreamWireBytesDown).toBeGreaterThan(live.totals.bytesDown);
      c.disconnect();
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
      const s = p.stats();
      expect(s.commands.SET?.count).toBe(1);
      expect(s.commands.GET?.count).toBe(1);
      // Kept once the socket is closed; the client side has no TLS.
      expect(s.tls!.upstreamWireBytesUp).toBeGreaterThanOrEqual(live.tls!.upstreamWireBytesUp);
      expect(s.tls!.upstreamHandshakes).toBeGreaterThanOrEqual(1);
      expect(s.tls!.upstreamHandshakeFailures).toBe(0);
      expect([s.tls!.handshakes, s.tls!.wireBytesUp, s.tls!.wireBytesDown]).toEqual([0, 0, 0]);
    });
  });

  it('a certificate the proxy cannot verify: the client is closed, the log names the failure, others are served', async () => {
    await withProxy({ upstream: redis.address, upstreamTls: true }, async (p, logs) => {
      const out = await run('redis-cli', ['-p', String(p.port), 'PING']).then((x) => x.stdout + x.stderr, (e: { stdout: string; stderr: string }) => e.stdout + e.stderr);
      expect(out).not.toMatch(/PONG/);
      await vi.waitUntil(() => logs.some((l) => /upstream .* failed: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)/.test(l)), { timeout: 3000, interval: 10 });
      await vi.waitUntil(() => p.stats().tls!.upstreamHandshakeFailures >= 1, { timeout: 3000, interval: 10 });
      expect(p.stats().tls!.upstreamHandshakes).toBe(0);
    });
    await withProxy({ upstream: redis.address, upstreamTls: { ca: redis.tls!.caFile, servername: 'not-this-host.example' } }, async (p, logs) => {
      await run('redis-cli', ['-p', String(p.port), 'PING']).catch(() => undefined);
      await vi.waitUntil(() => logs.some((l) => /ERR_TLS_CERT_ALTNAME_INVALID/.test(l)), { timeout: 3000, interval: 10 });
    });
  });

  it('TLS expected, plaintext upstream: per-connection error, the proxy keeps serving', async () => {
    // Redis reads the ClientHello as an unfinished inline command and waits: the connect timeout ends it.
    await withProxy({ upstream: plain.address, upstreamTls: true, connectTimeoutMs: 300 }, async (p, logs) => {
      const outs = await Promise.all(
        [0, 1].map(() => run('redis-cli', ['-p', String(p.port), 'PING']).then((x) => x.stdout, (e: { stdout: string }) => e.stdout)),
      );
      for (const out of outs) expect(out).not.toMatch(/PONG/);
      await vi.waitUntil(() => logs.filter((l) => /finished no TLS handshake \(plaintext Redis\?\) within 300 ms/.test(l)).length >= 2, { timeout: 3000, interval: 10 });
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
      expect(p.stats().tls!.upstreamHandshakeFailures).toBe(2);
    });
  });

  it("a client that fails its own handshake: the dial to Redis it drops is no failed upstream handshake", async () => {
    // The plaintext Redis never answers the ClientHello, so the dial is still in its handshake when
    // the client, which does not trust the proxy's certificate, goes: it was counted as failed.
    await withProxy({ upstream: plain.address, upstreamTls: true, listenTls: true, connectTimeoutMs: 30_000 }, async (p) => {
      const client = tls.connect({ host: p.host, port: p.port! });
      await new Promise((resolve) => client.once('error', resolve));
      client.destroy();
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
      expect(p.stats().tls).toMatchObject({ handshakeFailures: 1, upstreamHandshakes: 0, upstreamHandshakeFailures: 0 });
    });
  });

  it('plaintext expected, TLS upstream: per-connection error, no crash', async () => {
    await withProxy({ upstream: redis.address }, async (p) => {
      const out = await run('redis-cli', ['-p', String(p.port), 'PING']).then((x) => x.stdout + x.stderr, (e: { stdout: string; stderr: string }) => e.stdout + e.stderr);
      expect(out).not.toMatch(/PONG/);
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
    });
  });

  it('a unix socket --listen with --listen-tls: the hop measurement and the warm-up speak TLS to it too', async () => {
    // They dialed a socket file in the clear: each failed the handshake, logged as a plaintext
    // client's ('conn 1: client TLS ERR_SSL_WRONG_VERSION_NUMBER'), and nothing was measured. Over
    // TLS, the measurement's close was then logged as 'conn 1: client EPIPE'.
    const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-unix-listen-tls-'));
    try {
      const opts = { upstream: plain.address, listen: `unix:${join(dir, 'p.sock')}`, listenTls: true, compensationUs: undefined, warmUpConnections: 3 };
      await withProxy(opts, async (p, logs) => {
        expect(logs.filter((l) => /client|warm-up/.test(l))).toEqual([]);
        const c = new Redis({ path: join(dir, 'p.sock'), tls: { ca: readFileSync(p.tlsCaFile!) }, lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0 });
        await c.connect();
        expect(await c.ping()).toBe('PONG');
        c.disconnect();
        // redis-cli closes its socket at once: the close_notify that answers its FIN met EPIPE, logged as a failure.
        const { stdout } = await run('redis-cli', ['--tls', '--cacert', p.tlsCaFile!, '-s', join(dir, 'p.sock'), 'PING']);
        expect(stdout.trim()).toBe('PONG');
        await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
        // The start-up's connections are not counted: these clients' handshakes and PINGs only.
        expect([p.stats().tls!.handshakes, p.stats().commands.PING?.count]).toEqual([2, 2]);
        expect(logs.filter((l) => /client/.test(l))).toEqual([]);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bad input at start: missing CA, unparsable cert, key without cert, key not matching cert', async () => {
    const up = redis.address;
    await expect(startProxy({ upstream: up, upstreamTls: { ca: '/nonexistent/ca.pem' } })).rejects.toThrow(/--upstream-ca: .*ENOENT/);
    await expect(startProxy({ upstream: up, upstreamTls: { ca: redis.tls!.keyFile } })).rejects.toThrow(/--upstream-ca: .*PEM certificate/);
    await expect(startProxy({ upstream: up, upstreamTls: { key: redis.tls!.keyFile } })).rejects.toThrow(/--upstream-cert/);
    await expect(startProxy({ upstream: up, upstreamTls: { cert: redis.tls!.caFile, key: redis.tls!.keyFile } })).rejects.toThrow(
      /--upstream-key: .*does not match/,
    );
    await expect(startProxy({ upstream: up, listenTls: { cert: redis.tls!.caFile, key: redis.tls!.keyFile } })).rejects.toThrow(/--tls-key: .*does not match/);
    // Discovery speaks TLS too: a TLS Redis that is not a cluster node is named as such.
    await expect(startProxy({ upstream: up, upstreamTls: { ca: redis.tls!.caFile }, cluster: 'on' })).rejects.toThrow(/--cluster: .*not a cluster node/);
  });
});

describe('mTLS upstream', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis({ tls: { clientAuth: true } });
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('with the client certificate the proxy reaches Redis; without it Redis refuses and the log says so', async () => {
    const t = redis.tls!;
    await withProxy({ upstream: redis.address, upstreamTls: { ca: t.caFile, cert: t.clientCertFile, key: t.clientKeyFile } }, async (p) => {
      const { stdout } = await run('redis-cli', ['-p', String(p.port), 'PING']);
      expect(stdout.trim()).toBe('PONG');
    });
    await withProxy({ upstream: redis.address, upstreamTls: { ca: t.caFile } }, async (p, logs) => {
      const out = await run('redis-cli', ['-p', String(p.port), 'PING']).then((x) => x.stdout, (e: { stdout: string }) => e.stdout);
      expect(out).not.toMatch(/PONG/);
      await vi.waitUntil(() => logs.some((l) => /conn \d+: upstream/.test(l)), { timeout: 3000, interval: 10 });
    });
  });
});

describe('client-side TLS (--listen-tls) to a TLS upstream', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis({ tls: { clientAuth: true } });
  });
  afterAll(async () => {
    await redis?.stop();
  });
  const upstreamTls = (): { ca: string; cert?: string; key?: string } => {
    const t = redis.tls!;
    return { ca: t.caFile, cert: t.clientCertFile, key: t.clientKeyFile };
  };

  it('ioredis, redis-cli and redis-py over TLS with a generated pair; the tap counts as over TCP; wire bytes counted', async () => {
    await withProxy({ upstream: redis.address, upstreamTls: upstreamTls(), listenTls: true }, async (p) => {
      const ca = p.tlsCaFile!;
      expect(ca).toMatch(/ca\.crt$/);
      const c = new Redis({ host: '127.0.0.1', port: p.port, tls: { ca: readFileSync(ca) }, lazyConnect: true, protocol: 2 } as never);
      await c.connect();
      await c.set('a', '1');
      expect(await c.get('a')).toBe('1');
      // Read once at start and never renewed: valid for a year, not the test helpers' 2 days, after
      // which a proxy left running served an expired certificate to every client.
      const yearMs = 364 * 86_400_000;
      const served = (c as unknown as { stream: tls.TLSSocket }).stream.getPeerCertificate();
      expect(Date.parse(served.valid_to) - Date.now()).toBeGreaterThan(yearMs);
      expect(Date.parse(new X509Certificate(readFileSync(ca)).validTo) - Date.now()).toBeGreaterThan(yearMs);
      await c.quit();
      const { stdout } = await run('redis-cli', ['--tls', '--cacert', ca, '-p', String(p.port), 'PING']);
      expect(stdout.trim()).toBe('PONG');
      const py = `import redis; r = redis.Redis(host='127.0.0.1', port=${p.port}, ssl=True, ssl_ca_certs='${ca}'); r.set('b', '2'); print(r.get('b').decode())`;
      expect((await run('/usr/bin/python3', ['-c', py])).stdout.trim()).toBe('2');
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
      const s = p.stats();
      expect(s.commands.SET?.count).toBe(2);
      expect(s.commands.GET?.count).toBe(2);
      expect(s.commands.PING?.count).toBe(1);
      expect(s.tls!.handshakes).toBe(3);
      // Records, handshakes and alerts cost more than the plaintext they carry.
      expect(s.tls!.wireBytesUp).toBeGreaterThan(s.totals.bytesUp);
      expect(s.tls!.wireBytesDown).toBeGreaterThan(s.totals.bytesDown);
    });
  });

  it('with no delay each awaited command is its own round trip (a reply is not stamped with the next write)', async () => {
    await withProxy({ upstream: redis.address, upstreamTls: upstreamTls(), listenTls: true, link: { rttUs: 0 } }, async (p) => {
      const c = new Redis({ host: '127.0.0.1', port: p.port, tls: { ca: readFileSync(p.tlsCaFile!) }, lazyConnect: true, protocol: 2, disableClientInfo: true } as never);
      await c.connect();
      for (let i = 0; i < 20; i++) await c.get(`tls:seq:${i}`);
      await c.quit();
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
      const s = p.stats();
      expect(s.commands.GET?.count).toBe(20);
      // The ready check (INFO), 20 GETs and QUIT, each sent after the reply before it.
      expect(s.totals.commands).toBe(22);
      expect(s.totals.roundTrips, JSON.stringify(Object.keys(s.commands))).toBe(s.totals.commands);
    });
  });

  it('the tap times commands over TLS as over TCP: clientUs includes the link, serverUs does not; same roundTrips', async () => {
    const rttUs = 50_000;
    // Redis itself takes 3 ms over this one: serverUs must show it, over TLS as over TCP.
    const spin = 'local t = redis.call("TIME") local s = t[1] * 1e6 + t[2] repeat local n = redis.call("TIME") until n[1] * 1e6 + n[2] - s >= 3000 return 1';
    const perPath: Record<string, { roundTrips: number; clientP50: number; serverP50: number; count: number; spinServerP50: number }> = {};
    for (const listenTls of [false, true]) {
      await withProxy({ upstream: redis.address, upstreamTls: upstreamTls(), listenTls, link: { rttUs } }, async (p) => {
        const c = new Redis({ host: '127.0.0.1', port: p.port, lazyConnect: true, protocol: 2, ...(listenTls ? { tls: { ca: readFileSync(p.tlsCaFile!) } } : {}) } as never);
        await c.connect();
        p.resetStats();
        for (let i = 0; i < 5; i++) await c.get('x');
        await c.pipeline().get('x').get('y').exec();
        for (let i = 0; i < 3; i++) await c.eval(spin, 0);
        const s = p.stats();
        c.disconnect();
        const get = s.commands.GET!;
        const spinServerP50 = s.commands.EVAL!.serverUs.p50;
        const serverP50 = get.serverUs.p50;
        perPath[String(listenTls)] = { roundTrips: s.totals.roundTrips, clientP50: get.clientUs.p50, serverP50, count: get.count, spinServerP50 };
      });
    }
    for (const v of Object.values(perPath)) {
      expect(v.count).toBe(7);
      expect(v.roundTrips, JSON.stringify(perPath)).toBe(9);
      expect(v.spinServerP50, JSON.stringify(perPath)).toBeGreaterThanOrEqual(3000);
      expect(v.spinServerP50, JSON.stringify(perPath)).toBeLessThan(rttUs / 4);
      // The link is in clientUs once: missing would read a few ms, counted twice 100 ms.
      expect(v.clientP50).toBeGreaterThanOrEqual(rttUs * 0.98);
      expect(v.clientP50, JSON.stringify(perPath)).toBeLessThan(rttUs * 1.5);
      expect(v.serverP50, JSON.stringify(perPath)).toBeLessThan(rttUs / 4);
    }
  });

  it('a client that does not trust the certificate fails its handshake; the proxy serves the next client', async () => {
    await withProxy({ upstream: redis.address, upstreamTls: upstreamTls(), listenTls: true }, async (p, logs) => {
      const bad = await run('redis-cli', ['--tls', '--cacert', redis.tls!.caFile, '-p', String(p.port), 'PING']).then(
        (x) => x.stdout + x.stderr,
        (e: { stdout: string; stderr: string }) => e.stdout + e.stderr,
      );
      expect(bad).toMatch(/certificate verify failed|SSL/i);
      await vi.waitUntil(() => logs.some((l) => /client TLS .*(unknown ca|alert)/i.test(l)), { timeout: 3000, interval: 10 });
      // One line with the alert's reason, not OpenSSL's whole error line (an address, a source file, a newline).
      expect(logs.find((l) => /client TLS/.test(l))).toMatch(/^conn \d+: client TLS ERR_SSL_TLSV1_ALERT_UNKNOWN_CA tlsv1 alert unknown ca$/);
      const { stdout } = await run('redis-cli', ['--tls', '--cacert', p.tlsCaFile!, '-p', String(p.port), 'PING']);
      expect(stdout.trim()).toBe('PONG');
      expect(p.stats().tls!.handshakeFailures).toBeGreaterThanOrEqual(1);
    });
  });

  it('a Node client that does not trust the certificate closes with no alert: logged and counted; a port probe is not', async () => {
    await withProxy({ upstream: redis.address, upstreamTls: upstreamTls(), listenTls: true }, async (p, logs) => {
      // ioredis and node-redis check the certificate in JS after OpenSSL's handshake and just close:
      // the proxy's TLSSocket saw the handshake end with neither 'secure' nor an error.
      const refused = await new Promise<string>((resolve) => {
        const s = tls.connect({ host: '127.0.0.1', port: p.port, ca: readFileSync(redis.tls!.caFile) });
        s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      });
      expect(refused).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN/);
      await vi.waitUntil(() => logs.some((l) => /client TLS/.test(l)), { timeout: 3000, interval: 10 });
      expect(logs.filter((l) => /client TLS/.test(l))).toEqual([
        expect.stringMatching(/^conn \d+: client TLS (closed|reset) during the handshake \(no alert: does the client trust the certificate\?\)$/),
      ]);
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
      expect([p.stats().tls!.handshakes, p.stats().tls!.handshakeFailures]).toEqual([0, 1]);
      // A TCP connection that sends nothing tried no TLS: not a handshake failure.
      await new Promise<void>((resolve) => {
        const probe = net.connect(p.port!, '127.0.0.1', () => probe.end());
        probe.on('close', () => resolve());
      });
      const c = new Redis({ host: '127.0.0.1', port: p.port, tls: { ca: readFileSync(p.tlsCaFile!) }, lazyConnect: true, protocol: 2 } as never);
      await c.connect();
      expect(await c.ping()).toBe('PONG');
      c.disconnect();
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
      expect([p.stats().tls!.handshakes, p.stats().tls!.handshakeFailures]).toEqual([1, 1]);
      // A client that forgot TLS: OpenSSL's "wrong version number" alone did not say so.
      const plain = net.connect(p.port!, '127.0.0.1', () => plain.write('*1\r\n$4\r\nPING\r\n'));
      plain.on('error', () => undefined);
      await vi.waitUntil(() => logs.some((l) => /WRONG_VERSION/.test(l)), { timeout: 3000, interval: 10 });
      expect(logs.find((l) => /WRONG_VERSION/.test(l))).toMatch(
        /^conn \d+: client TLS ERR_SSL_WRONG_VERSION_NUMBER wrong version number \(a plaintext client\? this listener speaks TLS: rediss:\/\/, redis-cli --tls\)$/,
      );
      plain.destroy();
    });
  });

  it('a client that wants TLS 1.3 only, at a listener held to 1.2: logged with what the two do not share', async () => {
    await withProxy({ upstream: redis.address, upstreamTls: upstreamTls(), listenTls: { maxVersion: 'TLSv1.2' } }, async (p, logs) => {
      const s = tls.connect({ host: '127.0.0.1', port: p.port, minVersion: 'TLSv1.3', rejectUnauthorized: false });
      s.on('error', () => undefined);
      await vi.waitUntil(() => logs.some((l) => /client TLS/.test(l)), { timeout: 3000, interval: 10 });
      expect(logs.find((l) => /client TLS/.test(l))).toMatch(
        /^conn \d+: client TLS ERR_SSL_UNSUPPORTED_PROTOCOL unsupported protocol \(no TLS version both sides accept: this listener offers 1\.2 up to --tls-max-version\)$/,
      );
      s.destroy();
    });
  });

  it('a client that leaves during its handshake: the dial to Redis is dropped, not finished and then failed', async () => {
    // Redis's side of the dial is held until the proxy's side ends, so its handshake cannot finish
    // before the client has left: it was half-closed (a close_notify in the middle of the handshake,
    // which Redis answered with an alert logged as `upstream ERR_SSL_TLSV1_ALERT_DECODE_ERROR`).
    const relay = net.createServer((s) => {
      const held: Buffer[] = [];
      let ended = false;
      const r = net.connect(redis.port!, '127.0.0.1');
      s.on('data', (d: Buffer) => r.write(d));
      r.on('data', (d: Buffer) => (ended ? s.write(d) : held.push(d)));
      s.on('end', () => {
        ended = true;
        for (const d of held) s.write(d);
      });
      s.on('error', () => r.destroy());
      s.on('close', () => r.destroy());
      r.on('error', () => s.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      const upstream = `127.0.0.1:${(relay.address() as net.AddressInfo).port}`;
      await withProxy({ upstream, upstreamTls: { ...upstreamTls(), servername: 'localhost' }, listenTls: true }, async (p, logs) => {
        await new Promise<void>((resolve) => tls.connect({ host: '127.0.0.1', port: p.port, ca: readFileSync(redis.tls!.caFile) }).on('error', () => resolve()));
        await vi.waitUntil(() => p.stats().connections.active === 0 && p.stats().tls!.handshakeFailures === 1, { timeout: 3000, interval: 10 });
        expect(p.stats().tls!.upstreamHandshakes).toBe(0);
        expect(logs.filter((l) => /upstream/.test(l))).toEqual([]);
      });
    } finally {
      relay.close();
    }
  });

  it('toxics over client TLS act on plaintext: a latency toxic delays replies, not the handshake; a Redis-aware one answers', async () => {
    const latencyMs = 250;
    const toxics = [
      { type: 'latency', stream: 'downstream', attributes: { latency: latencyMs } },
      { type: 'redis_error', attributes: { commands: ['GET'], error: 'LOADING over TLS' } },
    ];
    await withProxy({ upstream: redis.address, upstreamTls: upstreamTls(), listenTls: true, toxics }, async (p) => {
      const startMs = performance.now();
      const socket = tls.connect({ host: '127.0.0.1', port: p.port, ca: readFileSync(p.tlsCaFile!) });
      await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
      const handshakeMs = performance.now() - startMs;
      const replies: string[] = [];
      socket.on('data', (d: Buffer) => replies.push(d.toString()));
      const sentMs = performance.now();
      socket.write('*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n');
      await vi.waitUntil(() => replies.join('').includes('+PONG'), { timeout: 5000, interval: 5 });
      const replyMs = performance.now() - sentMs;
      socket.destroy();
      expect(replies.join('')).toBe('-LOADING over TLS\r\n+PONG\r\n');
      expect(replyMs).toBeGreaterThanOrEqual(latencyMs - 1);
      // The handshake's bytes cross the link only: --rtt charges it, a toxic does not (unlike
      // toxiproxy in front of a TLS Redis, which delays every TCP byte).
      expect(handshakeMs).toBeLessThan(latencyMs);
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
      expect(p.stats().totals.errorsByPrefix).toEqual({ LOADING: 1 });
      expect(p.stats().tls!.handshakes).toBe(1);
    });
  });

  it('a generated certificate holds the listen host: ioredis verifies it at --listen 127.0.0.2; 0.0.0.0 adds this machine', async () => {
    // It held localhost and 127.0.0.1 only: ERR_TLS_CERT_ALTNAME_INVALID for any other listen address.
    await withProxy({ upstream: redis.address, upstreamTls: upstreamTls(), listenTls: true, listen: '127.0.0.2:0' }, async (p) => {
      const c = new Redis({ host: '127.0.0.2', port: p.port, tls: { ca: readFileSync(p.tlsCaFile!) }, lazyConnect: true, protocol: 2 } as never);
      await c.connect();
      expect(await c.ping()).toBe('PONG');
      c.disconnect();
    });
    const pair = generateListenPair(['0.0.0.0', 'proxy.example']);
    try {
      const names = new X509Certificate(readFileSync(pair.certFile)).subjectAltName ?? '';
      for (const n of ['DNS:localhost', 'IP Address:127.0.0.1', `DNS:${hostname()}`, 'DNS:proxy.example']) expect(names).toContain(n);
    } finally {
      pair.cleanup();
    }
    // --listen localhost binds what the name resolves to first, ::1 on many systems: named as [::1]:PORT.
    const local = generateListenPair(['localhost']);
    try {
      const names = new X509Certificate(readFileSync(local.certFile)).subjectAltName ?? '';
      for (const n of ['DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1']) expect(names).toContain(n);
    } finally {
      local.cleanup();
    }
  });

  it('--listen-tls-ca requires a client certificate (mTLS on the client side)', async () => {
    const t = redis.tls!;
    await withProxy({ upstream: redis.address, upstreamTls: upstreamTls(), listenTls: { cert: t.certFile, key: t.keyFile, ca: t.caFile } }, async (p) => {
      const withCert = await run('redis-cli', ['--tls', '--cacert', t.caFile, '--cert', t.clientCertFile!, '--key', t.clientKeyFile!, '-p', String(p.port), 'PING']);
      expect(withCert.stdout.trim()).toBe('PONG');
      const without = await run('redis-cli', ['--tls', '--cacert', t.caFile, '-p', String(p.port), 'PING']).then(
        (x) => x.stdout,
        (e: { stdout: string }) => e.stdout,
      );
      expect(without).not.toMatch(/PONG/);
    });
  });

  it("with --listen-tls-ca the start-up's own hop measurement and warm-up get through, and the TLS counters start at 0", async () => {
    const t = redis.tls!;
    const logs: string[] = [];
    const listenTls = { cert: t.certFile, key: t.keyFile, ca: t.caFile };
    // No compensationUs: the hop is measured at start, through the proxy's own TLS listener.
    const p = await startProxy({ upstream: redis.address, upstreamTls: upstreamTls(), listenTls, warmUpConnections: 2, log: (l) => logs.push(l) });
    try {
      expect(logs.join('\n')).not.toMatch(/ERR_SSL|client TLS/);
      expect(p.stats().tls).toEqual({ ...newTlsCounters() });
      expect(p.compensationUs.up).toBeGreaterThan(0);
      const c = await run('redis-cli', ['--tls', '--cacert', t.caFile, '--cert', t.clientCertFile!, '--key', t.clientKeyFile!, '-p', String(p.port), 'PING']);
      expect(c.stdout.trim()).toBe('PONG');
      await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 3000, interval: 10 });
      const s = p.stats();
      expect([s.tls!.handshakes, s.tls!.handshakeFailures, s.tls!.upstreamHandshakes]).toEqual([1, 0, 1]);
      // What TLS costs on the wire is the difference: the counters hold this client's bytes alone.
      expect(s.tls!.wireBytesUp).toBeGreaterThan(s.totals.bytesUp);
      expect(s.tls!.wireBytesUp).toBeLessThan(s.totals.bytesUp + 4000);
      p.resetStats();
      expect(p.stats().tls).toEqual({ ...newTlsCounters() });
    } finally {
      await p.close();
    }
  });
});
