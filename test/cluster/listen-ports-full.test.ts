import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { freeRange } from './helpers.js';
import { ListenPortRange } from '../../src/cluster/listen-ports.js';
import { settledFailure } from '../../src/cluster/settled-failure.js';
import { NetworkError } from '../../src/errors.js';
import { startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';

let cluster: PrivateCluster;
let taken: net.Server;
let port: number;
beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 0 });
  // A range of one port, held by someone else: no node but the seed (on --listen) gets a listener.
  taken = net.createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
  port = (taken.address() as net.AddressInfo).port;
}, 30_000);
afterAll(async () => {
  await new Promise<void>((r) => taken?.close(() => r()));
  await cluster?.stop();
});

describe('--listen-ports with no port left for several nodes', () => {
  it('says the range once and every node it failed, not the whole message once per node', async () => {
    const err = await startProxy({ upstream: cluster.address, cluster: 'on', listenPorts: `${port}-${port}`, compensationUs: { up: 0, down: 0 }, log: () => {} }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NetworkError);
    const others = cluster.nodes.filter((n) => n.address !== cluster.address).map((n) => `node ${n.address}`).sort();
    expect((err as NetworkError).message).toBe(
      `--listen-ports ${port}-${port}: no free port left for ${others.join(', ')} (the range has 1 port: 0 held by this proxy's listeners, 1 in use by another process; the nodes need 2)`,
    );
    expect((err as NetworkError).code).toBe('EADDRINUSE');
  });

  it('with --client-zones, names every listener left without a port by its client zone, and counts them all', async () => {
    // 3 nodes x 3 client zones = 9 listeners, zone 1's seed on --listen: 8 need a port of the range.
    // Each zone's listener of a node was counted once, and a zone's seed failing stopped the start
    // before the other nodes were tried: "the nodes need 1".
    const err = await startProxy({
      ...{ upstream: cluster.address, cluster: 'on', zones: 3, clientZones: 3, listenPorts: `${port}-${port}` },
      ...{ compensationUs: { up: 0, down: 0 }, log: () => {} },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    const listeners = [1, 2, 3]
      .flatMap((zone) => cluster.nodes.filter((n) => zone > 1 || n.address !== cluster.address).map((n) => `node ${n.address} (client zone ${zone})`))
      .sort();
    expect(listeners).toHaveLength(8);
    expect((err as NetworkError).message).toBe(
      `--listen-ports ${port}-${port}: no free port left for ${listeners.join(', ')} (the range has 1 port: 0 held by this proxy's listeners, 1 in use by another process; the nodes need 8)`,
    );
  });

  it('with --client-zones, a node\'s log lines name the client zone of the listener they are about; zone k\'s seed has port k-1 of the range', async () => {
    const lines: string[] = [];
    const base = await freeRange(8);
    const proxy = (await startProxy({
      ...{ upstream: cluster.address, cluster: 'on', zones: 3, clientZones: 3, link: { partition: '10s' }, listenPorts: `${base}-${base + 7}` },
      ...{ compensationUs: { up: 0, down: 0 }, log: (line: string) => lines.push(line) },
    })) as RedisRttClusterProxy;
    // The ports apps are given: the same at every start, whatever the timing.
    const seeds = proxy.clientZones()!.map((z) => z.seed);
    await proxy.close();
    expect(seeds.slice(1)).toEqual([`127.0.0.1:${base}`, `127.0.0.1:${base + 1}`]);
    // Each listener's partition line, once per client zone: they read the same for all three.
    const partitioned = lines.filter((l) => l.includes(': partition for 10000 ms')).map((l) => l.slice(0, l.indexOf(': partition')));
    const listeners = [1, 2, 3].flatMap((zone) => cluster.nodes.map((n) => `node ${n.address} (client zone ${zone})`));
    expect(partitioned.sort()).toEqual(listeners.sort());
  });

  it('one node alone reads as before, and a failure of another kind stays beside it', async () => {
    const full = new ListenPortRange({ from: 9001, to: 9002 });
    const inUse = (): Promise<never> => Promise.reject(new NetworkError('in use', 'EADDRINUSE'));
    const one = await Promise.allSettled([full.take(inUse, 'node 127.0.0.1:7003')]);
    expect(settledFailure(one)?.message).toBe(
      "--listen-ports 9001-9002: no free port left for node 127.0.0.1:7003 (the range has 2 ports: 0 held by this proxy's listeners, 2 in use by other processes; the nodes need 1)",
    );
    const mixed = await Promise.allSettled([full.take(inUse, 'node b:2'), Promise.reject(new Error('boom')), full.take(inUse, 'node a:1')]);
    expect(settledFailure(mixed)?.message).toBe(
      "--listen-ports 9001-9002: no free port left for node a:1, node b:2 (the range has 2 ports: 0 held by this proxy's listeners, 2 in use by other processes; the nodes need 2); boom",
    );
  });

  it('a node that failed while another was still taking the last port counts that port as this proxy\'s, not another process\'s', async () => {
    const one = new ListenPortRange({ from: 9001, to: 9001 });
    const both = await Promise.allSettled([one.take(async (port) => port, 'node a:1'), one.take(async (port) => port, 'node b:2')]);
    expect(settledFailure(both)?.message).toBe("--listen-ports 9001-9001: no free port left for node b:2 (the range has 1 port: 1 held by this proxy's listeners; the nodes need 2)");
  });

  it('a port given back is taken again only once no other is left, the longest given back first: a client that knew it must not land on another node', async () => {
    const range = new ListenPortRange({ from: 9001, to: 9005 });
    const take = (): Promise<number> => range.take(async (port) => port, 'node');
    expect([await take(), await take(), await take()]).toEqual([9001, 9002, 9003]);
    // 9002's node left, then 9001's (every client zone's set takes from this one range).
    range.release(9002);
    range.release(9001);
    expect([await take(), await take(), await take(), await take()]).toEqual([9004, 9005, 9002, 9001]);
    // Every port held by its own listeners: the message says how many the nodes need, not only that none is left.
    await expect(take()).rejects.toThrow("--listen-ports 9001-9005: no free port left for node (the range has 5 ports: 5 held by this proxy's listeners; the nodes need 6)");
  });
});
