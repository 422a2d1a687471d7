import { describe, expect, it } from 'vitest';
import { parseNodeLink, type NodeLinkRule } from '../../src/cluster/node-link.js';
import { parseLinkSpec } from '../../src/link/link-spec.js';
import { applyLinkUpdate } from '../../src/link/settings.js';
import { ClientZones } from '../../src/cluster/client-zones.js';
import { ListenPortRange } from '../../src/cluster/listen-ports.js';
import { NodeSet } from '../../src/cluster/node-set.js';
import { NetworkError } from '../../src/errors.js';
import type { TopologyNode } from '../../src/cluster/topology.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import type { LinkSettings } from '../../src/link/types.js';
import type { StatsSnapshot } from '../../src/stats/types.js';
import { newCounters } from '../../src/tap/counters.js';

const node = (port: number, role: 'master' | 'replica', masterId?: string): TopologyNode => ({
  id: `id${port}`,
  host: '127.0.0.1',
  port,
  hostname: undefined,
  role,
  masterId,
  firstSlot: role === 'master' ? port : undefined,
  myself: port === 7001,
  unusable: false,
});

/** A node set whose listener for `noPort` cannot open (no port left in --listen-ports); the others can. */
function nodeSet(noPort: number) {
  const links = new Map<number, LinkSettings>();
  let next = 9000;
  const set = new NodeSet({
    startNodeProxy: async (a, _port, link) => {
      if (a.port === noPort) throw new NetworkError(`--listen-ports 9001-9002: no free port left for node 127.0.0.1:${a.port}`, 'EADDRINUSE');
      links.set(a.port, link);
      const fake = { port: next++, setLink: (u: LinkSettings) => (links.set(a.port, u), u), link: () => links.get(a.port)!, close: async () => {} };
      return fake as unknown as RedisRttProxy;
    },
    stageFor: () => undefined,
    announceHost: '127.0.0.1',
    base: {},
    rules: [parseNodeLink('masters=rtt=2ms')],
    log: () => {},
  });
  return { set, links };
}

describe('a node that cannot get a listener', () => {
  it('does not stop the reading: the other nodes take their roles and role links, and the failure is still reported', async () => {
    const { set, links } = nodeSet(7003);
    await expect(set.setTopology([node(7001, 'master'), node(7002, 'replica', 'id7001'), node(7003, 'replica', 'id7001')])).rejects.toThrow(/no free port left for node 127.0.0.1:7003/);
    const roles = () => Object.fromEntries(set.list().map((n) => [n.port, `${n.role} ${n.linkName}`]));
    expect(roles()).toEqual({ 7001: 'master rtt=2ms', 7002: 'replica link' });
    // A failover: 7002 takes over from 7001 while 7003 still has no listener.
    await expect(set.setTopology([node(7001, 'replica', 'id7002'), node(7002, 'master'), node(7003, 'replica', 'id7002')])).rejects.toThrow(NetworkError);
    expect(roles()).toEqual({ 7001: 'replica link', 7002: 'master rtt=2ms' });
    expect(links.get(7002)!.upUs).toBe(1000);
    expect(links.get(7001)!.upUs).toBe(0);
  });
});

describe('a reply that names several nodes with no port left in --listen-ports', () => {
  it('fails naming each of them, and counts them all in "the nodes need N"', async () => {
    const set = new NodeSet({
      startNodeProxy: async (_a, port) => ({ port, close: async () => {} }) as unknown as RedisRttProxy,
      listenPorts: new ListenPortRange({ from: 9001, to: 9001 }),
      stageFor: () => undefined,
      announceHost: '127.0.0.1',
      base: {},
      rules: [],
      log: () => {},
    });
    await set.open([{ host: '127.0.0.1', port: 7001 }]);
    // The first node's failure alone was the error: "for node 127.0.0.1:7002 (...; the nodes need 2)".
    await expect(set.open([7002, 7003].map((port) => ({ host: '127.0.0.1', port })))).rejects.toThrow(
      "--listen-ports 9001-9001: no free port left for node 127.0.0.1:7002, node 127.0.0.1:7003 (the range has 1 port: 1 held by this proxy's listeners; the nodes need 3)",
    );
  });
});

describe('every client zone opening a node with no port left in --listen-ports (sentinel mode\'s replies)', () => {
  it('fails naming each zone\'s listener, and counts them all in "the nodes need N"', async () => {
    const range = new ListenPortRange({ from: 9001, to: 9001 });
    const zone = (clientZone: number) => ({
      zone: clientZone,
      nodes: new NodeSet({
        ...{ startNodeProxy: async (_a, port) => ({ port, close: async () => {} }) as unknown as RedisRttProxy, listenPorts: range },
        ...{ stageFor: () => undefined, announceHost: '127.0.0.1', base: {}, rules: [], log: () => {}, clientZone, nameClientZone: true },
      }),
    });
    const zones = new ClientZones([zone(1), zone(2)], true);
    await zones.open([{ host: '127.0.0.1', port: 7001 }], 0);
    // Zone 1 opened on --listen (port 0 here); zone 2 took the range's one port.
    await expect(zones.open([{ host: '127.0.0.1', port: 7002 }])).rejects.toThrow(
      "--listen-ports 9001-9001: no free port left for node 127.0.0.1:7002 (client zone 1), node 127.0.0.1:7002 (client zone 2) (the range has 1 port: 1 held by this proxy's listeners; the nodes need 3)",
    );
  });
});

describe('a node the cluster no longer has', () => {
  it('leaves the set and its listener closes; the seed stays; what it counted stays in goneStats', async () => {
    const closed: number[] = [];
    const lines: string[] = [];
    const set = new NodeSet({
      startNodeProxy: async (a, _port, link) => {
        const totals = { ...newCounters(), commands: a.port };
        const stats = (): StatsSnapshot => ({ totals, commands: {}, connections: { active: 1, total: 2 }, link });
        const close = async (): Promise<void> => void closed.push(a.port);
        return { port: a.port + 1000, link: () => link, setLink: (u: LinkSettings) => u, stats, close } as unknown as RedisRttProxy;
      },
      stageFor: () => undefined,
      announceHost: '127.0.0.1',
      base: {},
      rules: [],
      log: (l) => lines.push(l),
      goneAfterMs: 0,
    });
    await set.open([{ host: '127.0.0.1', port: 7001 }]);
    await set.setTopology([node(7001, 'master'), node(7002, 'master'), node(7003, 'replica', 'id7002')]);
    expect(set.goneStats()).toEqual([]);
    // 7003 forgotten; the seed (7001) is not in this reading either, but its listener is the one clients were given.
    await set.setTopology([node(7002, 'master')]);
    expect(set.list().map((n) => n.port)).toEqual([7001, 7002]);
    expect(set.listenerFor('127.0.0.1', 7003)).toBeUndefined();
    expect(closed).toEqual([7003]);
    const [gone] = set.goneStats();
    expect(gone!.totals.commands).toBe(7003);
    expect(gone!.connections).toEqual({ active: 0, total: 2 });
    set.resetGone();
    expect(set.goneStats()).toEqual([]);
    // A node restarted on another port: the same id at a new address.
    await set.setTopology([node(7001, 'master'), { ...node(7002, 'master'), port: 7012 }]);
    expect(set.list().map((n) => n.port)).toEqual([7001, 7012]);
    // Forgotten while it still owns slots, a node is listed with no address (`:0@0`, noaddr): it moved nowhere.
    await set.setTopology([node(7001, 'master'), { ...node(7002, 'master'), port: 0, unusable: true }]);
    expect(set.list().map((n) => n.port)).toEqual([7001]);
    expect(lines).toEqual([
      'node 127.0.0.1:7003 left the cluster: its listener 127.0.0.1:8003 is closed',
      'node 127.0.0.1:7002 moved to 127.0.0.1:7012: its listener 127.0.0.1:8002 is closed',
      'node 127.0.0.1:7012 left the cluster: its listener 127.0.0.1:8012 is closed',
    ]);
  });
});

describe('a node one reading leaves out', () => {
  it('keeps its listener until readings have left it out for goneAfterMs (gossip may not have told the node read yet)', async () => {
    const closed: number[] = [];
    const set = new NodeSet({
      startNodeProxy: async (a, _port, link) => {
        const close = async (): Promise<void> => void closed.push(a.port);
        return { port: a.port + 1000, link: () => link, setLink: (u: LinkSettings) => u, close } as unknown as RedisRttProxy;
      },
      stageFor: () => undefined,
      announceHost: '127.0.0.1',
      base: {},
      rules: [],
      log: () => {},
      goneAfterMs: 60_000,
    });
    await set.setTopology([node(7001, 'master'), node(7002, 'master'), node(7003, 'replica', 'id7002')]);
    await set.setTopology([node(7001, 'master'), node(7002, 'master')]);
    expect(set.list().map((n) => n.port)).toEqual([7001, 7002, 7003]);
    expect(closed).toEqual([]);
  });
});

describe('PUT /link?node=masters naming some settings (the control endpoint, setLink)', () => {
  it('keeps each master\'s other settings at every refresh, and a node that becomes master after a failover takes the same change on its own link', async () => {
    const links = new Map<number, LinkSettings>();
    const set = new NodeSet({
      startNodeProxy: async (a, _port, link) => {
        links.set(a.port, link);
        const setLink = (u: LinkSettings): LinkSettings => (links.set(a.port, applyLinkUpdate(links.get(a.port)!, u)), links.get(a.port)!);
        return { port: a.port + 1000, link: () => links.get(a.port)!, setLink, close: async () => {} } as unknown as RedisRttProxy;
      },
      stageFor: () => undefined,
      announceHost: '127.0.0.1',
      zoneCount: 3,
      zoneLinks: { same: parseLinkSpec('same-az'), cross: parseLinkSpec('cross-az') },
      base: {},
      rules: [],
      log: () => {},
    });
    // Shard i's primary in zone i+1, its replica in the next: 7001 z1, 7002 z2, 7003 z3; 7004 z2, 7005 z3, 7006 z1.
    const before = [node(7001, 'master'), node(7002, 'master'), node(7003, 'master'), node(7004, 'replica', 'id7001'), node(7005, 'replica', 'id7002'), node(7006, 'replica', 'id7003')];
    await set.setTopology(before);
    set.setLink({ jitterUs: 100 }, 'masters');
    const seen = () => Object.fromEntries([...links].map(([port, l]) => [port, `${l.upUs}/${l.downUs} jitter ${l.jitterUs}`]));
    const sameAz = '100/100';
    const crossAz = '600/600';
    const put = { 7001: `${sameAz} jitter 100`, 7002: `${crossAz} jitter 100`, 7003: `${crossAz} jitter 100` };
    expect(seen()).toMatchObject(put);
    // The once-a-second refresh re-derives every link: it gave each master the first master's whole link (7002 and 7003 at 0.2 ms).
    await set.setTopology(before);
    expect(seen()).toEqual({ ...put, 7004: `${crossAz} jitter 0`, 7005: `${crossAz} jitter 0`, 7006: `${sameAz} jitter 0` });
    // 7005 (zone 3) takes over from 7002 (zone 2): the jitter moves to it, on its own zone link.
    await set.setTopology([node(7001, 'master'), node(7002, 'replica', 'id7005'), node(7003, 'master'), node(7004, 'replica', 'id7001'), node(7005, 'master'), node(7006, 'replica', 'id7003')]);
    expect(seen()).toMatchObject({ 7002: `${crossAz} jitter 0`, 7005: `${crossAz} jitter 100`, 7001: `${sameAz} jitter 100` });
    expect(Object.fromEntries(set.list().map((n) => [n.port, n.linkName]))).toMatchObject({ 7002: 'cross-az', 7005: 'PUT /link' });
  });

  it('a ramp of PUTs leaves one overlay per selector and setting: the rules a refresh walks do not pile up', async () => {
    const rules: NodeLinkRule[] = [];
    const set = new NodeSet({
      startNodeProxy: async (a, _port, link) => {
        let now = link;
        const setLink = (u: LinkSettings): LinkSettings => (now = applyLinkUpdate(now, u));
        return { port: a.port + 1000, link: () => now, setLink, close: async () => {} } as unknown as RedisRttProxy;
      },
      stageFor: () => undefined,
      announceHost: '127.0.0.1',
      base: {},
      rules,
      log: () => {},
    });
    await set.setTopology([node(7001, 'master'), node(7002, 'replica', 'id7001')]);
    set.setLink({ jitterUs: 50 }, 'masters');
    for (let ms = 1; ms <= 500; ms++) set.setLink({ rttUs: ms * 1000 }, 'masters');
    set.setLink({ lossBurst: 2 }, undefined);
    expect(rules.map((r) => `${r.selector} ${Object.keys(r.link.update).join(',')}`)).toEqual(['masters jitterUs', 'masters upUs,downUs', '* lossBurst']);
    await set.setTopology([node(7001, 'master'), node(7002, 'replica', 'id7001')]);
    const seen = set.list().map((n) => ({ port: n.port, ...n.proxy.link() }));
    expect(seen.map((l) => `${l.port} ${l.upUs} ${l.jitterUs} ${l.lossBurst}`)).toEqual(['7001 250000 50 2', '7002 0 0 2']);
    // A PUT with no ?node= is every node's, a node added after it too (it was one rule per node there was then).
    await set.setTopology([node(7001, 'master'), node(7002, 'replica', 'id7001'), node(7003, 'master')]);
    expect(set.list().map((n) => `${n.port} ${n.proxy.link().lossBurst} ${n.linkName}`)).toEqual(['7001 2 PUT /link', '7002 2 PUT /link', '7003 2 PUT /link']);
  });
});

describe('a node a redirect named by its hostname before any reading had it', () => {
  it('keeps the listener it opened under that name once a reading gives its address: no second listener, nothing closed', async () => {
    const started: string[] = [];
    const closed: string[] = [];
    const set = new NodeSet({
      startNodeProxy: async (a, _port, link) => {
        started.push(`${a.host}:${a.port}`);
        const close = async (): Promise<void> => void closed.push(`${a.host}:${a.port}`);
        return { port: a.port + 1000, link: () => link, setLink: (u: LinkSettings) => u, close } as unknown as RedisRttProxy;
      },
      stageFor: () => undefined,
      announceHost: '127.0.0.1',
      base: {},
      rules: [parseNodeLink('masters=rtt=2ms')],
      log: () => {},
      goneAfterMs: 0,
    });
    await set.setTopology([node(7001, 'master')]);
    // -ASK 685 node-4.local:7004: the node was added a moment ago, the last reading did not have it.
    const [byName] = await set.open([{ host: 'node-4.local', port: 7004 }]);
    expect(byName!.listen.port).toBe(8004);
    await set.setTopology([node(7001, 'master'), { ...node(7004, 'master'), hostname: 'node-4.local' }]);
    await set.setTopology([node(7001, 'master'), { ...node(7004, 'master'), hostname: 'node-4.local' }]);
    expect(started).toEqual(['127.0.0.1:7001', 'node-4.local:7004']);
    expect(closed).toEqual([]);
    expect(set.list().map((n) => `${n.upstream} ${n.listen.port} ${n.role} ${n.linkName}`)).toEqual(['127.0.0.1:7001 8001 master rtt=2ms', '127.0.0.1:7004 8004 master rtt=2ms']);
    expect([set.listenerFor('127.0.0.1', 7004)?.port, set.listenerFor('node-4.local', 7004)?.port]).toEqual([8004, 8004]);
  });
});
