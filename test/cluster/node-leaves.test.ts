/**
 * Nodes that leave the cluster and nodes that cannot get a listener: a node removed with
 * `redis-cli --cluster del-node` leaves nodes() and /stats and its listener closes (its port back
 * in --listen-ports); a node with no port left is reported once when the refresh starts failing and
 * once when it works again, not at every refresh, and leaves /stats withoutListener when it leaves the cluster.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClusterStats, RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import type { ConnectionInfo } from '../../src/stats/types.js';
import { freeRange } from './helpers.js';
import { findFreePort, rawCommands, startPrivateCluster, startPrivateRedis, type PrivateCluster, type PrivateRedis } from '../../src/redis/index.js';

const run = promisify(execFile);

let cluster: PrivateCluster;
beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 1 });
}, 40_000);
afterAll(async () => {
  await cluster?.stop();
});

/** The node of each connection: cluster mode's /connections entries name it. */
const nodeOf = (list: readonly ConnectionInfo[]): string[] => list.map((c) => (c as ConnectionInfo & { node: string }).node);

const tcp = (listen: string) => ({ kind: 'tcp' as const, host: listen.split(':')[0]!, port: Number(listen.split(':')[1]) });

/** How many CLUSTER NODES the node at `port` has served: the proxy's refreshes ask the seed first. */
async function clusterNodesCalls(port: number): Promise<number> {
  const [info] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port }, [['INFO', 'commandstats']]);
  return Number(/cmdstat_cluster\|nodes:calls=(\d+)/.exec(info?.text ?? '')?.[1] ?? 0);
}

describe('cluster mode: a node that leaves, a node with no port left', () => {
  let extra: PrivateRedis | undefined;
  let proxy: RedisRttClusterProxy | undefined;
  afterAll(async () => {
    await proxy?.close();
    await extra?.stop();
  });

  it('the refresh failure is logged once while it lasts; del-node closes a listener, drops the node from /stats, and its port serves the waiting node', { timeout: 60_000 }, async () => {
    const seedPort = cluster.nodes[0]!.port;
    // The five nodes other than the seed fill the range exactly.
    const base = await freeRange(5);
    const lines: string[] = [];
    proxy = (await startProxy({
      upstream: cluster.address,
      cluster: 'on',
      listenPorts: `${base}-${base + 4}`,
      control: '127.0.0.1:0',
      topologyRefreshMs: 50,
      compensationUs: { up: 0, down: 0 },
      log: (l) => lines.push(l),
    })) as RedisRttClusterProxy;
    const p = proxy;
    expect(p.nodes()).toHaveLength(6);
    const failures = () => lines.filter((l) => l.startsWith('topology refresh failed'));

    // A sixth node joins: no port is left for it.
    const busPort = await findFreePort();
    extra = await startPrivateRedis({ args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort)] });
    const extraPort = extra.port!;
    const [extraId] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: extraPort }, [['CLUSTER', 'MYID']]);
    await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: seedPort }, [['CLUSTER', 'MEET', '127.0.0.1', String(extraPort), String(busPort)]]);
    await vi.waitFor(() => expect(failures()).toHaveLength(1), { timeout: 10_000, interval: 20 });
    // Every node knows every other (del-node asks each to forget): the new one too.
    for (const port of [...cluster.nodes.map((n) => n.port), extraPort]) {
      await vi.waitFor(
        async () => {
          const [t] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port }, [['CLUSTER', 'NODES']]);
          const known = (t?.text ?? '').trim().split('\n');
          expect(known.filter((l) => !/handshake|noaddr/.test(l))).toHaveLength(7);
        },
        { timeout: 10_000, interval: 50 },
      );
    }
    const full = `--listen-ports ${base}-${base + 4}: no free port left for node 127.0.0.1:${extraPort} (the range has 5 ports: 5 held by this proxy's listeners; the nodes need 6)`;
    expect(failures()[0]).toBe(`topology refresh failed: ${full}`);
    // Ten more refreshes that fail the same way say nothing new.
    const calls = await clusterNodesCalls(seedPort);
    await vi.waitFor(async () => expect(await clusterNodesCalls(seedPort)).toBeGreaterThanOrEqual(calls + 10), { timeout: 10_000, interval: 50 });
    expect(failures()).toHaveLength(1);
    // Each reply that names it tries again for a listener: said once, not per reply.
    for (let i = 0; i < 3; i++) {
      const [nodesText] = await rawCommands({ kind: 'tcp', host: p.host!, port: p.port! }, [['CLUSTER', 'NODES']]);
      expect(nodesText?.text).toContain(` 127.0.0.1:${extraPort}@`);
    }
    expect(lines.filter((l) => l.startsWith('could not open a listener'))).toEqual([
      `could not open a listener for 127.0.0.1:${extraPort}: ${full}; replies name it by its real address until it has one`,
    ]);
    // /stats names the node those replies sent clients to directly.
    expect(p.stats().cluster.withoutListener).toEqual([`127.0.0.1:${extraPort}`]);

    // Traffic on a replica's listener, then the replica leaves the cluster.
    const leaving = p.nodes().find((n) => n.role === 'replica')!;
    expect(await rawCommands(tcp(leaving.listen), [['PING'], ['PING'], ['PING']])).toHaveLength(3);
    const pingsBefore = p.stats().commands.PING!.count;
    // A client still connected to it when it leaves.
    const held = net.connect(tcp(leaving.listen).port, '127.0.0.1');
    let heldClosed = false;
    held.on('close', () => (heldClosed = true)).on('error', () => {});
    await vi.waitFor(() => expect(nodeOf(p.connections()).includes(leaving.upstream)).toBe(true), { timeout: 5000, interval: 20 });
    expect(pingsBefore).toBeGreaterThanOrEqual(3);
    await run('redis-cli', ['--cluster', 'del-node', cluster.address, leaving.id], { timeout: 20_000 }).catch((err: Error & { stdout?: string }) => {
      throw new Error(`${err.message}\n${err.stdout}`);
    });

    // Readings must leave it out for 5 s (a new node may be missing from one for a moment) before it goes.
    const removedAt = performance.now();
    await vi.waitFor(() => expect(p.nodes().map((n) => n.upstream)).not.toContain(leaving.upstream), { timeout: 20_000, interval: 20 });
    // del-node returns after its FORGETs and the reset: the grace began a little before removedAt.
    expect(performance.now() - removedAt).toBeGreaterThanOrEqual(4000);
    await vi.waitFor(() => expect(heldClosed).toBe(true), { timeout: 5000, interval: 20 });
    expect(nodeOf(p.connections())).not.toContain(leaving.upstream);
    // Its port went back to the range and the waiting node took it: the refresh works again, said once.
    await vi.waitFor(() => expect(p.nodes().map((n) => n.upstream)).toContain(`127.0.0.1:${extraPort}`), { timeout: 10_000, interval: 20 });
    const joined = p.nodes().find((n) => n.upstream === `127.0.0.1:${extraPort}`)!;
    expect(joined.listen).toBe(leaving.listen);
    const [myid] = await rawCommands(tcp(joined.listen), [['CLUSTER', 'MYID']]);
    expect(myid?.text).toBe(extraId?.text);
    await vi.waitFor(() => expect(lines.filter((l) => l === 'topology refresh works again')).toHaveLength(1), { timeout: 10_000, interval: 20 });
    expect(failures()).toHaveLength(1);
    expect(lines).toContain(`node ${leaving.upstream} left the cluster: its listener ${leaving.listen} is closed`);

    // /stats over the control endpoint: the node is gone from cluster.nodes, its PINGs stay in the totals.
    const stats = (await (await fetch(`http://${p.controlAddress}/stats`)).json()) as ClusterStats;
    expect(stats.cluster.nodes.map((n) => n.upstream)).not.toContain(leaving.upstream);
    expect(stats.cluster.nodes.map((n) => n.upstream).sort()).toEqual(p.nodes().map((n) => n.upstream).sort());
    expect(stats.cluster.nodes).toHaveLength(6);
    expect(stats.cluster.withoutListener).toEqual([]);
    expect(stats.commands.PING!.count).toBeGreaterThanOrEqual(pingsBefore);
    expect(stats.cluster.nodes.reduce((sum, n) => sum + n.counters.commands, 0)).toBeLessThan(stats.totals.commands);

    // The node that left joins again, with every port taken: it has no listener, and /stats lists it.
    const back = cluster.nodes.find((n) => n.address === leaving.upstream)!;
    // A new id: each node refuses the old one for 60 s after del-node's CLUSTER FORGET.
    await rawCommands(back.endpoint, [['FLUSHALL'], ['CLUSTER', 'RESET', 'HARD']]);
    const backId = (await rawCommands(back.endpoint, [['CLUSTER', 'MYID']]))[0]!.text!;
    await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: seedPort }, [['CLUSTER', 'MEET', '127.0.0.1', String(back.port), String(back.busPort)]]);
    await vi.waitFor(
      async () => {
        await rawCommands({ kind: 'tcp', host: p.host, port: p.port }, [['CLUSTER', 'NODES']]);
        expect(p.stats().cluster.withoutListener).toEqual([back.address]);
      },
      { timeout: 10_000, interval: 50 },
    );
    // It leaves again as del-node makes it: forgotten by every node (each must know it by its id for
    // that, not only be shaking hands with it), then reset. It stayed listed for good.
    const others = [...cluster.nodes.map((n) => n.port), extraPort].filter((port) => port !== back.port);
    for (const port of others) {
      await vi.waitFor(
        async () => {
          const [known] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port }, [['CLUSTER', 'NODES']]);
          expect(known?.text).toMatch(new RegExp(`^${backId} \\S+ master `, 'm'));
        },
        { timeout: 10_000, interval: 50 },
      );
    }
    for (const port of others) expect((await rawCommands({ kind: 'tcp', host: '127.0.0.1', port }, [['CLUSTER', 'FORGET', backId]]))[0]?.text).toBe('OK');
    await rawCommands(back.endpoint, [['CLUSTER', 'RESET', 'HARD']]);
    await vi.waitFor(() => expect(p.stats().cluster.withoutListener).toEqual([]), { timeout: 10_000, interval: 20 });
  });

  it('with --client-zones, a reply that names a node with no port left counts every zone\'s listener for it in "the nodes need N"', async () => {
    const seed = cluster.nodes[0]!;
    const [reading] = await rawCommands(seed.endpoint, [['CLUSTER', 'NODES']]);
    const members = (reading?.text ?? '').trim().split('\n').map((l) => l.split(' ')[1]!.split('@')[0]!);
    // Reset by the case above (or never joined): it joins below.
    const out = cluster.nodes.find((n) => !members.includes(n.address))!;
    expect(out, 'the case above leaves a node out of the cluster').toBeDefined();
    // Both zones' listeners of every member but zone 1's seed (on --listen): the range fits them exactly.
    const size = members.length * 2 - 1;
    const lines: string[] = [];
    // A port of the free range can be taken by another process before the start binds it: a new range then.
    const start = async (): Promise<{ base: number; zoned: RedisRttClusterProxy }> => {
      for (let attempt = 1; ; attempt++) {
        const base = await freeRange(size);
        try {
          const zoned = (await startProxy({
            ...{ upstream: cluster.address, cluster: 'on', zones: 2, clientZones: 2, listenPorts: `${base}-${base + size - 1}`, topologyRefreshMs: 60_000 },
            ...{ compensationUs: { up: 0, down: 0 }, log: (l: string) => lines.push(l) },
          })) as RedisRttClusterProxy;
          return { base, zoned };
        } catch (err) {
          if (attempt === 3 || !String(err).includes('in use by another process')) throw err;
          lines.length = 0;
        }
      }
    };
    const { base, zoned } = await start();
    try {
      await rawCommands(out.endpoint, [['FLUSHALL'], ['CLUSTER', 'RESET', 'HARD']]);
      await rawCommands(seed.endpoint, [['CLUSTER', 'MEET', '127.0.0.1', String(out.port), String(out.busPort)]]);
      const said = () => lines.filter((l) => l.startsWith('could not open a listener'));
      await vi.waitFor(
        async () => {
          await rawCommands({ kind: 'tcp', host: zoned.host, port: zoned.port }, [['CLUSTER', 'NODES']]);
          expect(said()).toHaveLength(1);
        },
        { timeout: 10_000, interval: 50 },
      );
      // Zone 1's reply: the node needs a listener in zone 2 too. It said "need ${size + 1}".
      const full = `--listen-ports ${base}-${base + size - 1}: no free port left for node ${out.address} (client zone 1), node ${out.address} (client zone 2)`;
      const why = `(the range has ${size} ports: ${size} held by this proxy's listeners; the nodes need ${size + 2})`;
      expect(said()).toEqual([`could not open a listener for ${out.address} (client zone 1): ${full} ${why}; replies name it by its real address until it has one`]);
    } finally {
      await zoned.close();
    }
  });
});
