import { describe, expect, it } from 'vitest';
import { parseNodeLink } from '../../src/cluster/node-link.js';
import { NodeSet } from '../../src/cluster/node-set.js';
import { NetworkError } from '../../src/errors.js';
import type { TopologyNode } from '../../src/cluster/topology.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import type { LinkSettings } from '../../src/link/types.js';

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
