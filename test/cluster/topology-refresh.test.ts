import { describe, expect, it, vi } from 'vitest';
import type { Discovery } from '../../src/cluster/discover.js';
import type { ListenerRole, TopologyNode } from '../../src/cluster/topology.js';

/** What each node's CLUSTER NODES says, by port; a port missing here refuses the connection. */
const readings = new Map<number, TopologyNode[]>();
const asked: number[] = [];
vi.mock('../../src/cluster/discover.js', () => ({
  discoverCluster: async (_host: string, port: number): Promise<Discovery> => {
    asked.push(port);
    const nodes = readings.get(port);
    if (!nodes) throw new Error('ECONNREFUSED');
    return { enabled: true, nodes } as Discovery;
  },
}));
const { TopologyRefresh } = await import('../../src/cluster/topology-refresh.js');

const node = (port: number, firstSlot?: number): TopologyNode => ({
  id: `id${port}`, host: '127.0.0.1', port, hostname: undefined, role: 'master', masterId: undefined, firstSlot, myself: false, unusable: false,
});

describe('the topology refresh with a node a reply named that no reading has yet', () => {
  it('asks the next nodes for a reading that has it (the seed hears of it by gossip up to a second later), else takes the seed\'s', async () => {
    const seed = [node(7001, 0), node(7002, 8192)];
    readings.set(7001, seed);
    // 7002 took part in the reshard that named 7003 in an ASK: it knows 7003, the seed not yet.
    readings.set(7002, [...seed, node(7003)]);
    const taken: number[][] = [];
    let listed: { host: string; port: number; role: ListenerRole }[] = [7001, 7002, 7003].map((port) => ({ host: '127.0.0.1', port, role: 'master' }));
    // Every client zone lists each node once more.
    const nodes = { list: () => [...listed, ...listed], setTopology: async (t: readonly TopologyNode[]) => void taken.push(t.map((n) => n.port)) };
    const refresh = new TopologyRefresh({ seed: { host: '127.0.0.1', port: 7001 }, nodes, auth: {}, tls: undefined, periodMs: 3_600_000, log: () => {} });

    // No node unread: the seed's reading, as before (7003 is not in it, its grace keeps it).
    await refresh.refresh();
    expect([asked.splice(0), taken.splice(0)]).toEqual([[7001], [[7001, 7002]]]);

    listed = listed.map((n) => (n.port === 7003 ? { ...n, role: 'unknown' } : n));
    await refresh.refresh();
    expect([asked.splice(0), taken.splice(0)]).toEqual([[7001, 7002], [[7001, 7002, 7003]]]);

    // No node has it (7003 itself refuses): each node asked once, then the seed's reading.
    readings.set(7002, seed);
    await refresh.refresh();
    expect([asked.splice(0), taken.splice(0)]).toEqual([[7001, 7002, 7003], [[7001, 7002]]]);
  });
});
