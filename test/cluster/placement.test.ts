import { describe, expect, it } from 'vitest';
import { linkForNode, parseNodeLink, selects } from '../../src/cluster/node-link.js';
import { parsePortRange } from '../../src/cluster/options.js';
import { parseClusterNodes, type TopologyNode } from '../../src/cluster/topology.js';
import { placeZones } from '../../src/cluster/zones.js';
import { parseLinkSpec } from '../../src/link/link-spec.js';
import { ConfigError } from '../../src/errors.js';

const NODES = [
  'aaaa 127.0.0.1:7003@17003 master - 0 1 3 connected 10923-16383',
  'bbbb 127.0.0.1:7001@17001 myself,master - 0 1 1 connected 0-5460',
  'cccc 127.0.0.1:7002@17002,host-c master - 0 1 2 connected 5461-10922',
  'dddd 127.0.0.1:7004@17004 slave bbbb 0 1 1 connected',
  'eeee 127.0.0.1:7005@17005 slave cccc 0 1 2 connected',
  'ffff 127.0.0.1:7006@17006 slave aaaa 0 1 3 connected',
  'ff01 127.0.0.1:7007@17007,,shard-id=77 slave aaaa 0 1 3 connected',
  '9999 :0@0 noaddr,master - 0 1 0 disconnected',
  '',
].join('\n');

describe('parseClusterNodes', () => {
  it('reads id, address, role, primary, first slot, myself and unusable nodes', () => {
    const n = parseClusterNodes(NODES, '10.0.0.1');
    expect(n).toHaveLength(8);
    expect(n[1]).toEqual({ id: 'bbbb', host: '127.0.0.1', port: 7001, hostname: undefined, role: 'master', masterId: undefined, firstSlot: 0, myself: true, unusable: false });
    // The announced hostname (Redis 7), and none where 7.2's aux fields follow an empty one.
    expect(n[2]).toMatchObject({ host: '127.0.0.1', port: 7002, hostname: 'host-c' });
    expect(n[6]).toMatchObject({ host: '127.0.0.1', port: 7007, hostname: undefined });
    expect(n[3]).toMatchObject({ role: 'replica', masterId: 'bbbb', firstSlot: undefined });
    expect(n[7]).toMatchObject({ host: '10.0.0.1', port: 0, unusable: true });
  });
});

describe('placeZones', () => {
  const nodes = parseClusterNodes(NODES, '127.0.0.1').filter((n) => !n.unusable);
  it('shard i (slot order) primary in zone (i mod N)+1, its replica r (from 1) in ((i + r) mod N)+1', () => {
    const z = placeZones(nodes, 3);
    // Shards in slot order: bbbb (0-5460), cccc (5461-), aaaa (10923-).
    expect([z.get('bbbb'), z.get('cccc'), z.get('aaaa')]).toEqual([1, 2, 3]);
    expect([z.get('dddd'), z.get('eeee')]).toEqual([2, 3]);
    // aaaa (shard 2) has two replicas, in address order: r=1 -> zone 1, r=2 -> zone 2.
    expect([z.get('ffff'), z.get('ff01')]).toEqual([1, 2]);
  });
  it('two zones, and one zone puts everything in the client zone', () => {
    const z2 = placeZones(nodes, 2);
    expect([z2.get('bbbb'), z2.get('cccc'), z2.get('aaaa'), z2.get('dddd')]).toEqual([1, 2, 1, 2]);
    expect(new Set(placeZones(nodes, 1).values())).toEqual(new Set([1]));
  });
  it('a primary without slots comes after the shards', () => {
    const extra: TopologyNode = { id: '1234', host: '127.0.0.1', port: 7010, hostname: undefined, role: 'master', masterId: undefined, firstSlot: undefined, myself: false, unusable: false };
    expect(placeZones([...nodes, extra], 3).get('1234')).toBe(1);
  });
});

describe('--node-link selectors', () => {
  const m = { id: 'abcdef12', upstream: '127.0.0.1:7001', role: 'master' as const };
  const r = { id: '99990000', upstream: '127.0.0.1:7004', role: 'replica' as const };
  it('masters, replicas, host:port, :port, id prefix', () => {
    expect([selects('masters', m), selects('masters', r)]).toEqual([true, false]);
    expect([selects('replicas', m), selects('replicas', r)]).toEqual([false, true]);
    expect([selects('127.0.0.1:7001', m), selects('127.0.0.1:7001', r)]).toEqual([true, false]);
    expect(selects(':7004', r)).toBe(true);
    expect([selects('abcd', m), selects('ABCD', m), selects('abce', m)]).toEqual([true, true, false]);
  });
  it('[ipv6]:port, as an IPv6 address is typed everywhere else, picks the node whose upstream holds it bare', () => {
    const v6 = { id: '::1:47201', upstream: '::1:47201', role: 'master' as const };
    expect(parseNodeLink('[::1]:47201=rtt=7ms').selector).toBe('[::1]:47201');
    expect([selects('[::1]:47201', v6), selects('[::1]:47202', v6), selects('[::1]:47201', m)]).toEqual([true, false, false]);
  });
  it('parses SELECTOR=LINK where the link holds = too, and refuses bad ones naming the flag', () => {
    expect(parseNodeLink('masters=rtt=2ms').link.update).toEqual({ rttUs: 2000 });
    expect(parseNodeLink('replicas=same-az').link.name).toBe('same-az');
    for (const bad of ['masters', '=rtt=1ms', 'all=rtt=1ms', 'masters=direct', 'masters=nope']) {
      expect(() => parseNodeLink(bad)).toThrow(ConfigError);
      expect(() => parseNodeLink(bad)).toThrow(/--node-link/);
    }
  });
  it('last matching rule wins over the zone link, which wins over the base link', () => {
    const zones = { same: parseLinkSpec('same-az'), cross: parseLinkSpec('cross-az') };
    const rules = [parseNodeLink('masters=rtt=2ms'), parseNodeLink('abcd=rtt=3ms')];
    const o = { base: { rttUs: 500 }, baseName: 'link', zones, rules };
    expect(linkForNode(m, 2, o)).toEqual({ name: 'rtt=3ms', update: { rttUs: 3000 }, overlays: [] });
    expect(linkForNode(r, 1, o).name).toBe('same-az');
    expect(linkForNode(r, 2, o).name).toBe('cross-az');
    expect(linkForNode(r, undefined, { ...o, zones: undefined }).update).toEqual({ rttUs: 500 });
  });
  it('the same-zone link goes to the nodes in the client zone of the listener set (zone 1 unless given)', () => {
    const zones = { same: parseLinkSpec('same-az'), cross: parseLinkSpec('cross-az') };
    const o = { base: {}, baseName: 'link', zones, rules: [], clientZone: 2 };
    expect([1, 2, 3].map((z) => linkForNode(r, z, o).name)).toEqual(['cross-az', 'same-az', 'cross-az']);
  });
  it('--listen-ports A-B', () => {
    expect(parsePortRange('7100-7110')).toEqual({ from: 7100, to: 7110 });
    for (const bad of ['7110-7100', '0-5', '1-70000', 'x']) expect(() => parsePortRange(bad)).toThrow(/--listen-ports/);
  });
});
