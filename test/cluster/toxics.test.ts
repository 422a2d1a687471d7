/**
 * Toxics on a cluster proxy through its control endpoint: /toxics adds, updates and removes a toxic
 * on every node's listener, a node that joins later gets the toxics there are, and /toxics, /stats
 * and /metrics count its applications over all nodes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClusterStats, RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { findFreePort, rawCommands, startPrivateCluster, startPrivateRedis, type PrivateCluster, type PrivateRedis } from '../../src/redis/index.js';

let cluster: PrivateCluster;
let extra: PrivateRedis | undefined;
let proxy: RedisRttClusterProxy | undefined;
beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 1 });
}, 40_000);
afterAll(async () => {
  await proxy?.close();
  await extra?.stop();
  await cluster?.stop();
});

const tcp = (listen: string) => ({ kind: 'tcp' as const, host: listen.split(':')[0]!, port: Number(listen.split(':')[1]) });

/** What GET answers on each listener, as text ("-..." for an error), in the order of `listens`. */
async function getOn(listens: readonly string[]): Promise<string[]> {
  return Promise.all(
    listens.map(async (l) => {
      const [r] = await rawCommands(tcp(l), [['GET', 'k']], 5000);
      return r?.type === '-' ? `-${r.text}` : String(r?.text);
    }),
  );
}

describe('cluster mode: toxics over the control endpoint', () => {
  it('POST /toxics puts a toxic on every node, a node that joins later too; counts add up over the nodes; DELETE takes it off everywhere', { timeout: 60_000 }, async () => {
    proxy = (await startProxy({ upstream: cluster.address, cluster: 'on', control: '127.0.0.1:0', topologyRefreshMs: 3_600_000, compensationUs: { up: 0, down: 0 }, log: () => {} })) as RedisRttClusterProxy;
    const p = proxy;
    const api = `http://${p.controlAddress}`;
    const added = await fetch(`${api}/toxics`, { method: 'POST', body: JSON.stringify({ name: 'nope', type: 'redis_error', attributes: { commands: ['GET'], error: 'ERR injected' } }) });
    expect(added.status).toBe(200);
    expect(((await added.json()) as { name: string }).name).toBe('nope');
    const six = p.nodes().map((n) => n.listen);
    expect(six).toHaveLength(6);
    expect(await getOn(six)).toEqual(six.map(() => '-ERR injected'));
    // A name in use is refused (409) and changes nothing on any node.
    const again = await fetch(`${api}/toxics`, { method: 'POST', body: JSON.stringify({ name: 'nope', type: 'redis_error', attributes: { error: 'ERR other' } }) });
    expect(again.status).toBe(409);
    expect(p.toxics()).toHaveLength(1);

    // A node that joins after the toxic was added starts with it.
    const busPort = await findFreePort();
    extra = await startPrivateRedis({ args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort)] });
    const extraAt = `127.0.0.1:${extra.port!}`;
    await rawCommands(cluster.nodes[0]!.endpoint, [['CLUSTER', 'MEET', '127.0.0.1', String(extra.port!), String(busPort)]]);
    await vi.waitFor(
      async () => {
        await p.refreshTopology();
        expect(p.nodes().map((n) => n.upstream)).toContain(extraAt);
      },
      { timeout: 10_000, interval: 100 },
    );
    const seven = p.nodes().map((n) => n.listen);
    expect(await getOn(seven)).toEqual(seven.map(() => '-ERR injected'));

    // PATCH changes it on every node, the late one too.
    const patched = await fetch(`${api}/toxics/nope`, { method: 'PATCH', body: JSON.stringify({ attributes: { error: 'ERR patched' } }) });
    expect(patched.status).toBe(200);
    expect(await getOn(seven)).toEqual(seven.map(() => '-ERR patched'));

    // 6 + 7 + 7 GETs answered by the toxic, summed over the nodes in /toxics, /stats and /metrics.
    const listed = (await (await fetch(`${api}/toxics`)).json()) as { toxics: { name: string }[]; counts: { name: string; applications: number }[] };
    expect(listed.toxics.map((t) => t.name)).toEqual(['nope']);
    expect(listed.counts).toEqual([{ name: 'nope', type: 'redis_error', stream: 'downstream', applications: 20 }]);
    const stats = (await (await fetch(`${api}/stats`)).json()) as ClusterStats;
    expect(stats.toxics).toEqual(listed.counts);
    const metrics = await (await fetch(`${api}/metrics`)).text();
    expect(metrics).toMatch(/^redis_rtt_toxic_applications_total\{toxic="nope",type="redis_error",stream="downstream"\} 20$/m);

    expect((await fetch(`${api}/toxics/nope`, { method: 'DELETE' })).status).toBe(204);
    expect(p.toxics()).toEqual([]);
    // Redis answers again: the owner of k's slot (no such key), the other primaries and the replicas
    // a MOVED, the node with no slots CLUSTERDOWN.
    const after = await getOn(seven);
    expect(after.filter((r) => r === 'null')).toHaveLength(1);
    for (const r of after) expect(r).toMatch(/^(null|-MOVED \d+ 127\.0\.0\.1:\d+|-CLUSTERDOWN .*)$/);
  });
});
