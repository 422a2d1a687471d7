import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';
import { directClients, keyPerMaster, median, untilPong } from './helpers.js';

const run = promisify(execFile);
const RTT_MS = 20;
// A command on an open connection pays the link's RTT plus Redis and two loopback hops; the proxy
// takes its measured hop off. Stated tolerance, as test/proxy/delay.test.ts states it for one node:
// the median of 15 within -5% / +25% of the RTT. A client that bypasses the proxy (0 ms), a node
// without its link, or a doubled delay (40 ms) fails; a loaded 2-core VM's 2-4 ms passes.
const LOW_MS = RTT_MS * 0.95;
const HIGH_MS = RTT_MS * 1.25;

let cluster: PrivateCluster;
let proxy: RedisRttClusterProxy;
beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 1 });
  proxy = (await startProxy({ upstream: cluster.address, cluster: 'on', link: { rttUs: RTT_MS * 1000 }, log: () => {} })) as RedisRttClusterProxy;
}, 40_000);
afterAll(async () => {
  await proxy?.close();
  await cluster?.stop();
});

function realPorts(): RegExp {
  return new RegExp(`\\b(${cluster.nodes.map((n) => n.port).join('|')})\\b`);
}

/** Sends commands on one raw socket to the seed listener and returns everything that came back. */
function through(cmds: string[][]): Promise<string> {
  return untilPong(net.connect({ host: proxy.host!, port: proxy.port! }), cmds);
}

describe('topology replies through the proxy name only listeners', () => {
  it('CLUSTER SLOTS / SHARDS / NODES / REPLICAS, MOVED, in RESP2 and RESP3 and in MULTI/EXEC', async () => {
    const before = proxy.stats().cluster.rewrites;
    const other = (await keyPerMaster(cluster)).find((k) => k.masterPort !== cluster.nodes[0]!.port)!.key;
    const masterId = proxy.nodes().find((n) => n.role === 'master')!.id;
    for (const proto of ['2', '3']) {
      const out = await through(
        [['HELLO', proto], ['CLUSTER', 'SLOTS'], ['CLUSTER', 'SHARDS'], ['CLUSTER', 'NODES'], ['CLUSTER', 'REPLICAS', masterId], ['GET', other], ['MULTI'], ['CLUSTER', 'SLOTS'], ['CLUSTER', 'NODES'], ['EXEC'], ['PING']],
      );
      expect(out).toContain('MOVED');
      const leak = realPorts().exec(out);
      expect(leak ? out.slice(Math.max(0, leak.index - 200), leak.index + 50) : '').toBe('');
      for (const n of proxy.nodes()) expect(out).toContain(String(n.listen.split(':')[1]));
    }
    const after = proxy.stats().cluster.rewrites;
    expect(after.slots - before.slots).toBe(4);
    expect(after.shards - before.shards).toBe(2);
    expect(after.nodes - before.nodes).toBe(4);
    expect(after.replicas - before.replicas).toBe(2);
    expect(after.moved - before.moved).toBe(2);
  });

  it('RESET ends a transaction: the next EXEC is rewritten by its own queue (a value naming a node stays as written)', async () => {
    const seedKey = (await keyPerMaster(cluster)).find((k) => k.masterPort === cluster.nodes[0]!.port)!.key;
    const value = `0123 ${cluster.nodes[1]!.address}@${cluster.nodes[1]!.port + 10000} master - 0 0 1 connected`;
    const out = await through([['SET', seedKey, value], ['MULTI'], ['CLUSTER', 'NODES'], ['RESET'], ['MULTI'], ['GET', seedKey], ['CLUSTER', 'SLOTS'], ['EXEC'], ['PING']]);
    // The queue RESET left made the EXEC rewrite the value as a CLUSTER NODES line and pass the
    // SLOTS reply with every real port in it.
    expect(out).toContain(`*2\r\n$${value.length}\r\n${value}\r\n*`);
    const rest = out.replace(value, '');
    const leak = realPorts().exec(rest);
    expect(leak ? rest.slice(Math.max(0, leak.index - 200), leak.index + 50) : '').toBe('');
  });
});

describe('real cluster clients with no address mapping stay behind the proxy', () => {
  it('ioredis Cluster: every node connection is a proxy upstream socket; each GET on an open connection costs the RTT on every master', async () => {
    const c = new Cluster([{ host: proxy.host, port: proxy.port }], { enableOfflineQueue: true });
    try {
      const keys = await keyPerMaster(cluster);
      for (const { key } of keys) await c.set(key, 'v');
      for (let i = 0; i < 30; i++) await c.set(`io:${i}`, String(i));
      for (let i = 0; i < 30; i++) expect(await c.get(`io:${i}`)).toBe(String(i));
      expect(await directClients(cluster, proxy)).toEqual([]);
      for (const { key, masterPort } of keys) {
        const ms: number[] = [];
        for (let i = 0; i < 15; i++) {
          const t0 = performance.now();
          await c.get(key);
          ms.push(performance.now() - t0);
        }
        const m = median(ms);
        expect(m, `GET ${key} on the master at ${masterPort}: median ${m.toFixed(2)} ms`).toBeGreaterThanOrEqual(LOW_MS);
        expect(m, `GET ${key} on the master at ${masterPort}: median ${m.toFixed(2)} ms`).toBeLessThanOrEqual(HIGH_MS);
      }
    } finally {
      c.disconnect();
    }
  });

  it('node-redis createCluster (no nodeAddressMap)', async () => {
    const c = createCluster({ rootNodes: [{ url: `redis://${proxy.host}:${proxy.port}` }] });
    c.on('error', () => {});
    await c.connect();
    try {
      for (let i = 0; i < 30; i++) await c.set(`nr:${i}`, String(i));
      for (let i = 0; i < 30; i++) expect(await c.get(`nr:${i}`)).toBe(String(i));
      expect(await directClients(cluster, proxy)).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it('redis-py RedisCluster (no address_remap): 50 SETs pay the link, the proxy sees them all', async () => {
    const before = proxy.stats().commands.SET?.count ?? 0;
    const script = [
      'import sys, time',
      'from redis.cluster import RedisCluster',
      `c = RedisCluster(host=${JSON.stringify(proxy.host)}, port=${proxy.port})`,
      't0 = time.monotonic()',
      'for i in range(50): c.set(f"py:{i}", i)',
      'ms = (time.monotonic() - t0) * 1000',
      'assert [c.get(f"py:{i}") for i in range(50)] == [str(i).encode() for i in range(50)]',
      'print(round(ms, 1), sorted({n.port for n in c.get_nodes()}))',
    ].join('\n');
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { timeout: 30_000 });
    const [ms, ports] = [Number(stdout.split(' ')[0]), stdout.slice(stdout.indexOf('['))];
    expect(ms).toBeGreaterThanOrEqual(50 * RTT_MS);
    expect(proxy.stats().commands.SET!.count - before).toBe(50);
    // The nodes it learned are the listeners.
    for (const n of proxy.nodes()) expect(ports).toContain(n.listen.split(':')[1]!);
    expect(ports).not.toMatch(realPorts());
  });

  it('redis-cli -c follows MOVED to another listener', async () => {
    const key = (await keyPerMaster(cluster)).find((k) => k.masterPort !== cluster.nodes[0]!.port)!.key;
    const moved = proxy.stats().cluster.rewrites.moved;
    const { stdout } = await run('redis-cli', ['-c', '-h', proxy.host!, '-p', String(proxy.port), 'SET', key, 'from-cli'], { timeout: 10_000 });
    expect(stdout.trim()).toBe('OK');
    expect(proxy.stats().cluster.rewrites.moved).toBe(moved + 1);
    const { stdout: got } = await run('redis-cli', ['-c', '-h', proxy.host!, '-p', String(proxy.port), 'GET', key], { timeout: 10_000 });
    expect(got.trim()).toBe('from-cli');
  });
});

describe('TLS clients in front of a plaintext cluster (--listen-tls, one generated CA for every listener)', () => {
  it('SHARDS names each listener by tls-port only; ioredis Cluster with tls and redis-cli -c --tls reach all three shards through it', async () => {
    const secure = (await startProxy({ upstream: cluster.address, cluster: 'on', listenTls: true, log: () => {} })) as RedisRttClusterProxy;
    const ca = readFileSync(secure.tlsCaFile!);
    const c = new Cluster([{ host: '127.0.0.1', port: secure.port! }], { redisOptions: { tls: { ca } } });
    try {
      const shards = await untilPong(tls.connect({ host: '127.0.0.1', port: secure.port!, ca }), [['CLUSTER', 'SHARDS'], ['PING']]);
      expect(shards.split('\r\ntls-port\r\n').length - 1).toBe(6);
      expect(shards.split('\r\nport\r\n').length - 1).toBe(0);
      expect(shards).not.toMatch(realPorts());
      const keys = await keyPerMaster(cluster);
      for (const { key } of keys) await c.set(key, `tls-${key}`);
      for (const { key } of keys) expect(await c.get(key)).toBe(`tls-${key}`);
      const { stdout } = await run('redis-cli', ['--tls', '--cacert', secure.tlsCaFile!, '-c', '-p', String(secure.port), 'GET', keys[2]!.key], { timeout: 10_000 });
      expect(stdout.trim()).toBe(`tls-${keys[2]!.key}`);
      const both = new Set([...proxy.connections(), ...secure.connections()].map((x) => String(x.upstreamLocalPort)));
      const direct = (await directClients(cluster, secure)).filter((l) => !both.has(/ addr=\S+:(\d+) /.exec(l)?.[1] ?? ''));
      expect(direct).toEqual([]);
      for (const n of secure.stats().cluster.nodes.filter((x) => x.role === 'master')) expect(n.counters.commands).toBeGreaterThanOrEqual(2);
    } finally {
      c.disconnect();
      await secure.close();
    }
  });
});
