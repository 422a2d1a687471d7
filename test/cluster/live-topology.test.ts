import { Cluster } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { rawCommands, startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';
import { directClients } from './helpers.js';

let cluster: PrivateCluster;
let proxy: RedisRttClusterProxy;
beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 1 });
  proxy = (await startProxy({ upstream: cluster.address, cluster: 'on', link: { rttUs: 1000 }, topologyRefreshMs: 200, log: () => {} })) as RedisRttClusterProxy;
}, 40_000);
afterAll(async () => {
  await proxy?.close();
  await cluster?.stop();
});

/** The load runs this long between two MIGRATEs (the clients meet the slot half moved), */
const BETWEEN_MIGRATES_MS = 5;
/** and this long on the finished migration and on the new roles after the failover: nothing may fail meanwhile. */
const LOAD_AFTER_MIGRATION_MS = 300;
const LOAD_AFTER_FAILOVER_MS = 500;

const admin = (port: number, ...cmds: string[][]) => rawCommands({ kind: 'tcp', host: '127.0.0.1', port }, cmds, 5000);
const text = async (port: number, ...cmd: string[]): Promise<string> => (await admin(port, cmd))[0]?.text ?? '';

interface Node {
  id: string;
  port: number;
  role: string;
  masterId: string;
  slots: string[];
}
async function topology(): Promise<Node[]> {
  const t = await text(cluster.nodes[0]!.port, 'CLUSTER', 'NODES');
  return t.trim().split('\n').map((l) => {
    const f = l.split(' ');
    return { id: f[0]!, port: Number(f[1]!.split(/[:@]/)[1]), role: f[2]!.includes('master') ? 'master' : 'replica', masterId: f[3]!, slots: f.slice(8) };
  });
}

/** Clients loop SET then GET on their own keys (some in the migrating slot) until stopped. */
function loadLoop(clients: Cluster[], keys: string[], stop: { done: boolean }) {
  const stats = { ops: 0, errors: [] as string[], last: new Map<string, number>() };
  const loops = clients.map(async (c, ci) => {
    for (let n = 0; !stop.done; n++) {
      const key = keys[(n * clients.length + ci) % keys.length]!;
      try {
        await c.set(key, String(n));
        const got = await c.get(key);
        if (got !== String(n)) stats.errors.push(`${key}: wrote ${n}, read ${got}`);
        stats.last.set(key, n);
        stats.ops += 2;
      } catch (err) {
        stats.errors.push(`${key}: ${(err as Error).message}`);
      }
    }
  });
  return { stats, done: Promise.all(loops) };
}

it('a key-by-key slot migration (ASK, then MOVED) and a CLUSTER FAILOVER under load: 0 client errors, nothing lost, every client behind the proxy', async () => {
  const nodes = await topology();
  const masters = nodes.filter((n) => n.role === 'master');
  const source = masters.find((m) => m.slots.some((s) => s.startsWith('0-')))!;
  const target = masters.find((m) => m !== source)!;
  // Keys in slot 0's neighbourhood: a hash tag that hashes into the source's range, its slot found by Redis.
  const tag = await findTagInSlotsOf(source);
  const slot = Number(await text(source.port, 'CLUSTER', 'KEYSLOT', `{${tag}}`));
  const migrating = Array.from({ length: 40 }, (_, i) => `{${tag}}:${i}`);
  const others = Array.from({ length: 40 }, (_, i) => `other:${i}`);
  for (const k of migrating) await admin(source.port, ['SET', k, 'seed']);

  const clients = Array.from({ length: 3 }, () => new Cluster([{ host: proxy.host!, port: proxy.port! }], { enableOfflineQueue: true }));
  await Promise.all(clients.map((c) => c.set('warm', '1')));
  const before = proxy.stats().cluster.rewrites;
  const stop = { done: false };
  const load = loadLoop(clients, [...migrating, ...others], stop);
  try {
    // Migration, one key per MIGRATE, as redis-cli --cluster reshard does in batches.
    const t0 = performance.now();
    await admin(target.port, ['CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', source.id]);
    await admin(source.port, ['CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', target.id]);
    for (;;) {
      const [keys] = await admin(source.port, ['CLUSTER', 'GETKEYSINSLOT', String(slot), '1']);
      const key = keys?.items?.[0]?.text;
      if (!key) break;
      const [r] = await admin(source.port, ['MIGRATE', '127.0.0.1', String(target.port), key, '0', '5000']);
      expect(['OK', 'NOKEY']).toContain(r?.text);
      await sleep(BETWEEN_MIGRATES_MS);
    }
    for (const m of masters) await admin(m.port, ['CLUSTER', 'SETSLOT', String(slot), 'NODE', target.id]);
    const migrationMs = performance.now() - t0;
    await sleep(LOAD_AFTER_MIGRATION_MS);

    // Failover: a replica of the source takes over.
    const replica = nodes.find((n) => n.role === 'replica' && n.masterId === source.id)!;
    const t1 = performance.now();
    expect(await text(replica.port, 'CLUSTER', 'FAILOVER')).toBe('OK');
    await vi.waitUntil(async () => /^master/.test((await admin(replica.port, ['ROLE']))[0]?.items?.[0]?.text ?? ''), { timeout: 5000, interval: 25 });
    const failoverMs = performance.now() - t1;
    // The proxy follows the new roles (as soon as the node it asks has heard of them by gossip).
    const roleOf = (port: number) => proxy.nodes().find((n) => n.upstream === `127.0.0.1:${port}`)?.role;
    await vi.waitUntil(
      async () => {
        if (roleOf(replica.port) === 'master' && roleOf(source.port) === 'replica') return true;
        await proxy.refreshTopology();
        return false;
      },
      { timeout: 5000, interval: 50 },
    );
    expect(proxy.nodes().find((n) => n.upstream === `127.0.0.1:${replica.port}`)?.role).toBe('master');
    expect(proxy.nodes().find((n) => n.upstream === `127.0.0.1:${source.port}`)?.role).toBe('replica');
    await sleep(LOAD_AFTER_FAILOVER_MS);
    stop.done = true;
    await load.done;

    const after = proxy.stats().cluster.rewrites;
    const asks = after.ask - before.ask;
    const moves = after.moved - before.moved;
    console.log(`migration of slot ${slot} (${migrating.length} keys) ${migrationMs.toFixed(0)} ms, failover ${failoverMs.toFixed(0)} ms, ${load.stats.ops} ops, ASK ${asks}, MOVED ${moves}`);
    expect(load.stats.errors).toEqual([]);
    expect(asks).toBeGreaterThan(0);
    expect(moves).toBeGreaterThan(0);
    // Nothing lost: every key holds the last value a client wrote.
    for (const [key, n] of load.stats.last) expect(await clients[0]!.get(key)).toBe(String(n));
    const leaks = (await directClients(cluster, proxy)).filter((l) => !/ cmd=restore-asking /.test(l));
    expect(leaks).toEqual([]);
  } finally {
    stop.done = true;
    await load.done;
    clients.forEach((c) => c.disconnect());
  }
});

async function findTagInSlotsOf(source: Node): Promise<string> {
  const [from, to] = source.slots.find((s) => s.includes('-'))!.split('-').map(Number) as [number, number];
  for (let i = 0; ; i++) {
    const s = Number(await text(source.port, 'CLUSTER', 'KEYSLOT', `{t${i}}`));
    if (s >= from && s <= to) return `t${i}`;
  }
}
