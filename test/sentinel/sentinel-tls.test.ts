/**
 * Sentinel mode over TLS, as a managed deployment has it: every data node and every sentinel TLS
 * only (`--port 0 --tls-port P`, `tls-replication yes`). One setup and two proxies on it for the
 * file: `plain` (--upstream-tls, plaintext listeners) and `secure` (--listen-tls too). Clients must
 * be sent to listeners only, before and after a SENTINEL FAILOVER (docs/sentinel.md#tls).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { createSentinel } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { rawCommands, type RawReply } from '../../src/redis/index.js';
import { rawField } from '../../src/redis/raw-command.js';
import { startPrivateSentinel, type PrivateSentinel } from '../../src/redis/private-sentinel.js';
import { generateTlsFiles, type TlsFiles } from '../../src/redis/tls-certs.js';
import type { RedisRttSentinelProxy } from '../../src/sentinel/sentinel-proxy.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';
import { clientTls, directClients, primaryPort } from './helpers.js';

const run = promisify(execFile);

let setup: PrivateSentinel;
let plain: RedisRttSentinelProxy;
let secure: RedisRttSentinelProxy;
/** The CA of `secure`'s generated listener pair, for its TLS clients. */
let proxyCa: Buffer;
let proxyCaFile: string;
beforeAll(async () => {
  setup = await startPrivateSentinel({ tls: true, replicas: 1, sentinels: 2 });
  const base = { sentinels: [...setup.sentinelAddresses], sentinelMaster: 'mymaster', upstreamTls: { ca: setup.tls!.caFile }, log: () => {} };
  [plain, secure] = await Promise.all([startSentinelProxy(base), startSentinelProxy({ ...base, listenTls: true })]);
  proxyCaFile = secure.tlsCaFile!;
  proxyCa = readFileSync(proxyCaFile);
}, 30_000);
afterAll(async () => {
  await Promise.all([plain?.close(), secure?.close()]);
  await setup?.stop();
});

const PROXIES = [
  { name: 'plaintext listeners', proxy: () => plain, tls: (): tls.ConnectionOptions | undefined => undefined },
  { name: 'TLS listeners (--listen-tls)', proxy: () => secure, tls: (): tls.ConnectionOptions | undefined => ({ ca: proxyCa }) },
];

/** The listener of the real node (or sentinel) on `port`. */
function listenerOf(p: RedisRttSentinelProxy, port: number): string | undefined {
  return p.nodes().find((n) => n.upstream === `127.0.0.1:${port}`)?.listen;
}

function listeners(p: RedisRttSentinelProxy, role: 'sentinel' | 'data'): string[] {
  return p
    .nodes()
    .filter((n) => (role === 'sentinel') === (n.role === 'sentinel'))
    .map((n) => n.listen);
}

/** Every instance entry's `ip:port` (and `master-host:master-port`) in a SENTINEL reply. */
function entryAddresses(reply: RawReply | undefined): string[] {
  return (reply?.items ?? []).flatMap((e) => {
    const own = `${rawField(e, 'ip')}:${rawField(e, 'port')}`;
    return rawField(e, 'master-port') === undefined ? [own] : [own, `${rawField(e, 'master-host')}:${rawField(e, 'master-port')}`];
  });
}

describe('Sentinel over TLS: TLS-only nodes and sentinels behind --upstream-tls', () => {
  it('startPrivateSentinel({ tls: true }) serves TLS only, sentinels included', async () => {
    for (const p of [...setup.nodes, ...setup.sentinels]) {
      const at = { kind: 'tcp' as const, host: '127.0.0.1', port: p.port! };
      expect((await rawCommands(at, [['PING']], 2000, clientTls(setup)))[0]?.text).toBe('PONG');
      // A plaintext client is reset at its first bytes.
      await expect(rawCommands(at, [['PING']], 2000)).rejects.toThrow(/ECONNRESET/);
    }
  });

  it.each(PROXIES)('every SENTINEL reply names $name, never a real node or sentinel', async ({ proxy, tls }) => {
    const p = proxy();
    expect(p.nodes().filter((n) => n.role === 'sentinel')).toHaveLength(2);
    expect(p.nodes().filter((n) => n.role === 'master' || n.role === 'replica')).toHaveLength(2);
    const at = { kind: 'tcp' as const, host: p.host, port: p.port };
    const [addr, replicas, sentinels, masters] = await rawCommands(
      at,
      [['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster'], ['SENTINEL', 'REPLICAS', 'mymaster'], ['SENTINEL', 'SENTINELS', 'mymaster'], ['SENTINEL', 'MASTERS']],
      5000,
      tls(),
    );
    const primary = `${addr!.items![0]!.text}:${addr!.items![1]!.text}`;
    expect(primary).toBe(listenerOf(p, await primaryPort(setup)));
    expect(entryAddresses(replicas)).toHaveLength(2);
    expect(entryAddresses(masters)).toEqual([primary]);
    for (const a of [...entryAddresses(replicas), ...entryAddresses(masters)]) expect(listeners(p, 'data')).toContain(a);
    // Each sentinel lists the others: here the one behind the seed's listener lists the second.
    expect(entryAddresses(sentinels)).toEqual(listeners(p, 'sentinel').filter((l) => l !== `${p.host}:${p.port}`));
  });

  it.each(PROXIES)('ioredis, node-redis and redis-py find the primary through $name and write there', async ({ proxy, tls }) => {
    const p = proxy();
    const seed = { host: p.host, port: p.port };
    const secured = tls();
    const primary = listenerOf(p, await primaryPort(setup))!;
    // ioredis takes `tls` for the nodes only with enableTLSForSentinelMode.
    const io = new Redis({ sentinels: [seed], name: 'mymaster', ...(secured ? { sentinelTLS: secured, tls: secured, enableTLSForSentinelMode: true } : {}) });
    const socket = secured && { tls: true as const, ca: proxyCa };
    const nr = createSentinel({
      name: 'mymaster',
      sentinelRootNodes: [seed],
      ...(socket ? { sentinelClientOptions: { socket }, nodeClientOptions: { socket } } : {}),
    });
    try {
      expect(await io.set('tls:io', 'a')).toBe('OK');
      expect(`127.0.0.1:${io.stream.remotePort}`).toBe(primary);
      await nr.connect();
      expect(await nr.set('tls:nr', 'b')).toBe('OK');
      expect(await nr.get('tls:io')).toBe('a');
    } finally {
      io.disconnect();
      await nr.close().catch(() => undefined);
    }
    const ssl = secured ? `ssl=True, ssl_ca_certs=${JSON.stringify(proxyCaFile)}` : '';
    const py = [
      'from redis.sentinel import Sentinel',
      `s = Sentinel([(${JSON.stringify(seed.host)}, ${seed.port})], socket_timeout=5, sentinel_kwargs=dict(${ssl}), ${ssl})`,
      "m = s.master_for('mymaster', socket_timeout=5)",
      "m.set('tls:py', 'c')",
      "host, port = s.discover_master('mymaster')",
      "print(f\"{host}:{port} {m.get('tls:nr').decode()}\")",
    ].join('\n');
    const { stdout } = await run('/usr/bin/python3', ['-c', py], { timeout: 15_000 });
    expect(stdout.trim()).toBe(`${primary} b`);
  });

  it('a start that talks plaintext to TLS-only sentinels says to add --upstream-tls', async () => {
    const err: unknown = await startSentinelProxy({ sentinels: [...setup.sentinelAddresses], sentinelMaster: 'mymaster', log: () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^--sentinel: .*ECONNRESET \(a TLS-only sentinel\? add --upstream-tls\)/);
  });

  it('a start over TLS to a plaintext sentinel that never finishes the handshake says so', async () => {
    // A plaintext Redis reads the ClientHello as an unfinished inline command and waits: so does this one.
    // It never reads either, so it would never see the client's FIN: its sockets are destroyed at the end.
    const accepted: net.Socket[] = [];
    const silent = net.createServer((s) => void accepted.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const at = `127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      const err: unknown = await startSentinelProxy({ sentinels: [at], sentinelMaster: 'mymaster', upstreamTls: true, log: () => {} }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/^--sentinel: .*no reply within \d+ ms \(no TLS handshake: a plaintext sentinel\? leave out --upstream-tls\)/);
    } finally {
      for (const s of accepted) s.destroy();
      silent.close();
    }
  });

  it('a sentinel that closes before it replies is one that does not answer, not one that monitors no master', async () => {
    // resume(): read on to the client's FIN, so that the socket closes rather than stays half-open.
    const closing = net.createServer((s) => s.end().resume());
    await new Promise<void>((r) => closing.listen(0, '127.0.0.1', r));
    try {
      const at = `127.0.0.1:${(closing.address() as net.AddressInfo).port}`;
      const err: unknown = await startSentinelProxy({ sentinels: [at], sentinelMaster: 'mymaster', log: () => {} }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(new RegExp(`^--sentinel: invalid value "${at}"; expected a sentinel that answers \\(sentinel ${at}: closed the connection after 0 of 5 replies\\)`));
    } finally {
      closing.close();
    }
  });

  it.each([
    { name: 'named by an IP its certificate does not hold', host: '::1', other: false, flag: /^--upstream-servername: missing; expected a name in the nodes' certificate: the sentinels name the primary \[::1\]:\d+, which it does not hold \(primary \[::1\]:\d+: ERR_TLS_CERT_ALTNAME_INVALID/ },
    { name: 'signed by another CA', host: '127.0.0.1', other: true, flag: /^--upstream-ca: invalid value ".*"; expected a CA that signed the upstream's certificate \(primary 127\.0\.0\.1:\d+: UNABLE_TO_VERIFY_LEAF_SIGNATURE/ },
  ])('a primary whose certificate does not verify ($name) stops the start naming the flag, as a sentinel\'s does', async ({ host, other, flag }) => {
    // The sentinels' certificates verify; only the primary's does not: a TLS sentinel that names it, and a TLS "primary".
    const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-sentinel-tls-test-'));
    const own = setup.tls!;
    const files: TlsFiles = other ? generateTlsFiles(dir) : own;
    const pair = (f: TlsFiles) => ({ cert: readFileSync(f.certFile), key: readFileSync(f.keyFile) });
    const primary = tls.createServer(pair(files), (s) => s.on('error', () => undefined));
    await new Promise<void>((r) => primary.listen(0, host, r));
    const port = (primary.address() as net.AddressInfo).port;
    const bulk = (t: string): string => `$${Buffer.byteLength(t)}\r\n${t}\r\n`;
    const answer = `+OK\r\n*2\r\n${bulk(host)}${bulk(String(port))}*0\r\n*0\r\n*0\r\n`;
    const sentinel = tls.createServer(pair(own), (s) => {
      let asked = '';
      s.on('error', () => undefined);
      s.on('data', (d: Buffer) => void ((asked += d.toString()).includes('MASTERS') && s.write(answer)));
    });
    await new Promise<void>((r) => sentinel.listen(0, '127.0.0.1', r));
    try {
      const at = `127.0.0.1:${(sentinel.address() as net.AddressInfo).port}`;
      const result: unknown = await startSentinelProxy({ sentinels: [at], sentinelMaster: 'mymaster', upstreamTls: { ca: own.caFile }, log: () => {} }).then(
        async (p) => (await p.close(), 'started'),
        (e: unknown) => e,
      );
      expect(result).toBeInstanceOf(ConfigError);
      expect((result as Error).message).toMatch(flag);
    } finally {
      sentinel.close();
      primary.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('a node or sentinel met after the given ones, whose certificate another CA signed', () => {
    const bulk = (t: string): string => `$${Buffer.byteLength(t)}\r\n${t}\r\n`;
    const entries = (ports: readonly number[]): string => `*${ports.length}\r\n${ports.map((p) => `*4\r\n${bulk('ip')}${bulk('127.0.0.1')}${bulk('port')}${bulk(String(p))}`).join('')}`;
    let dir: string;
    /** TLS servers of another CA, standing for a replica and a sentinel: only their handshake matters. */
    let foreign: tls.Server[];
    let replicaPort: number;
    let sentinelPort: number;
    let readings = 0;
    /** What the fake sentinel names: the real primary, these replicas and sentinels. */
    const named = { replicas: [] as number[], sentinels: [] as number[] };
    let fake: tls.Server;
    let fakeAt: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'redis-rtt-sentinel-tls-test-'));
      const pair = (f: TlsFiles) => ({ cert: readFileSync(f.certFile), key: readFileSync(f.keyFile) });
      const other = pair(generateTlsFiles(dir));
      foreign = [0, 1].map(() => tls.createServer(other, (s) => s.on('error', () => undefined)));
      await Promise.all(foreign.map((f) => new Promise<void>((r) => f.listen(0, '127.0.0.1', r))));
      [replicaPort, sentinelPort] = foreign.map((f) => (f.address() as net.AddressInfo).port) as [number, number];
      const primary = await primaryPort(setup);
      fake = tls.createServer(pair(setup.tls!), (s) => {
        let asked = '';
        s.on('error', () => undefined);
        s.on('data', (d: Buffer) => {
          if (!(asked += d.toString()).includes('MASTERS')) return;
          readings++;
          s.write(`+OK\r\n*2\r\n${bulk('127.0.0.1')}${bulk(String(primary))}${entries(named.replicas)}${entries(named.sentinels)}*0\r\n`);
        });
      });
      await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
      fakeAt = `127.0.0.1:${(fake.address() as net.AddressInfo).port}`;
    });
    afterAll(() => {
      fake?.close();
      for (const f of foreign ?? []) f.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const start = (log: (line: string) => void) =>
      startSentinelProxy({ sentinels: [fakeAt], sentinelMaster: 'mymaster', upstreamTls: { ca: setup.tls!.caFile }, sentinelRefreshMs: 50, log });

    it("a replica's, at start, stops it naming the flag, as the primary's does", async () => {
      named.replicas = [replicaPort];
      named.sentinels = [];
      const result: unknown = await start(() => {}).then(
        async (p) => (await p.close(), 'started'),
        (e: unknown) => e,
      );
      expect(result).toBeInstanceOf(ConfigError);
      expect((result as Error).message).toMatch(
        new RegExp(`^--upstream-ca: invalid value ".*"; expected a CA that signed the upstream's certificate \\(replica 127\\.0\\.0\\.1:${replicaPort}: UNABLE_TO_VERIFY_LEAF_SIGNATURE`),
      );
    });

    it('a learned sentinel\'s, and a replica listed after start, are each logged once, naming the node and the flag', async () => {
      named.replicas = [];
      named.sentinels = [sentinelPort];
      const lines: string[] = [];
      const proxy = await start((l) => lines.push(l));
      try {
        const said = (who: 'sentinel' | 'replica') =>
          lines.filter((l) => l.startsWith(`warning: ${who} 127.0.0.1:${who === 'sentinel' ? sentinelPort : replicaPort}: its certificate does not verify`));
        await vi.waitFor(() => expect(said('sentinel')).toHaveLength(1), { timeout: 10_000 });
        named.replicas = [replicaPort];
        await vi.waitFor(() => expect(said('replica')).toHaveLength(1), { timeout: 10_000 });
        // Readings go on once a 50 ms: several more say nothing new.
        const after = readings;
        await vi.waitFor(() => expect(readings).toBeGreaterThan(after + 5), { timeout: 10_000 });
        expect(said('sentinel')).toEqual([expect.stringMatching(/: --upstream-ca: invalid value ".*"; expected a CA that signed the upstream's certificate \(sentinel 127\.0\.0\.1:\d+: UNABLE_TO_VERIFY_LEAF_SIGNATURE/)]);
        expect(said('replica')).toHaveLength(1);
        expect(said('replica')[0]).toMatch(/\(replica 127\.0\.0\.1:\d+: UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
      } finally {
        await proxy.close();
      }
    });
  });

  it('through SENTINEL FAILOVER: +switch-master names listeners on both, clients follow, nothing reaches a real port', async () => {
    const before = await primaryPort(setup);
    const subs = PROXIES.map(({ proxy, tls }) => {
      const sub = new Redis({ host: proxy().host, port: proxy().port, ...(tls() ? { tls: tls() } : {}) });
      const events: string[] = [];
      sub.on('message', (_ch: string, m: string) => events.push(m));
      return { sub, events, ready: sub.subscribe('+switch-master') };
    });
    await Promise.all(subs.map((s) => s.ready));
    const seed = { host: secure.host, port: secure.port };
    const io = new Redis({ sentinels: [seed], name: 'mymaster', failoverDetector: true, sentinelTLS: { ca: proxyCa }, tls: { ca: proxyCa }, enableTLSForSentinelMode: true });
    io.on('error', () => undefined);
    const socket = { tls: true as const, ca: proxyCa };
    const nr = createSentinel({ name: 'mymaster', sentinelRootNodes: [seed], sentinelClientOptions: { socket }, nodeClientOptions: { socket } });
    nr.on('error', () => undefined);
    try {
      await io.set('tls:before', '1');
      await nr.connect();
      await nr.set('tls:before', '2');
      const sentinelAt = { kind: 'tcp' as const, host: '127.0.0.1', port: setup.sentinels[0]!.port! };
      expect((await rawCommands(sentinelAt, [['SENTINEL', 'FAILOVER', 'mymaster']], 2000, clientTls(setup)))[0]?.text).toBe('OK');
      await vi.waitFor(async () => expect(await primaryPort(setup)).not.toBe(before), { timeout: 15_000, interval: 50 });
      const after = await primaryPort(setup);
      const [plainSub, secureSub] = subs;
      await vi.waitFor(() => expect(plainSub!.events.length * secureSub!.events.length).toBeGreaterThan(0), { timeout: 15_000, interval: 50 });
      expect(plainSub!.events[0]).toBe(`mymaster ${listenerOf(plain, before)!.replace(':', ' ')} ${listenerOf(plain, after)!.replace(':', ' ')}`);
      expect(secureSub!.events[0]).toBe(`mymaster ${listenerOf(secure, before)!.replace(':', ' ')} ${listenerOf(secure, after)!.replace(':', ' ')}`);
      // Both clients write on the new primary, through its listener.
      const onNew = async (): Promise<void> => {
        expect(await io.set('tls:after', '1')).toBe('OK');
        expect(await nr.set('tls:after', '2')).toBe('OK');
        expect(`127.0.0.1:${io.stream.remotePort}`).toBe(listenerOf(secure, after));
        expect((await io.role())[0]).toBe('master');
      };
      await vi.waitFor(onNew, { timeout: 15_000, interval: 100 });
      // Every client connection on the real nodes and sentinels is one of the two proxies' upstream sockets.
      const direct = async (): Promise<string[]> => {
        const lines = await directClients(setup, plain);
        const proxied = new Set([...plain.connections(), ...secure.connections()].map((c) => String(c.upstreamLocalPort)));
        return lines.filter((l) => !proxied.has(/ addr=\S+:(\d+) /.exec(l)?.[1] ?? ''));
      };
      await vi.waitFor(async () => expect(await direct()).toEqual([]), { timeout: 3000, interval: 50 });
    } finally {
      io.disconnect();
      await nr.close().catch(() => undefined);
      for (const s of subs) s.sub.disconnect();
    }
  });
});
