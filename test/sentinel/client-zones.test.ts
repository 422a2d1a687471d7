import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClientZoneView } from '../../src/cluster/cluster-view.js';
import { median } from '../../src/numbers/quantiles.js';
import { startPrivateSentinel, type PrivateSentinel } from '../../src/redis/private-sentinel.js';
import type { RedisRttSentinelProxy } from '../../src/sentinel/sentinel-proxy.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';
import { oneHeldOneRefused, untilPong } from '../cluster/helpers.js';
import { promtoolCheck } from '../helpers/promtool.js';
import { directClients } from './helpers.js';

const SAME_MS = 20;
const CROSS_MS = 40;

let setup: PrivateSentinel;
let proxy: RedisRttSentinelProxy;
let zones: ClientZoneView[];
beforeAll(async () => {
  setup = await startPrivateSentinel({ replicas: 2, sentinels: 3 });
  proxy = await startSentinelProxy({
    sentinels: [...setup.sentinelAddresses],
    sentinelMaster: setup.masterName,
    zones: 3,
    clientZones: 3,
    sameZoneLink: `rtt=${SAME_MS}ms`,
    crossZoneLink: `rtt=${CROSS_MS}ms`,
    log: () => undefined,
  });
  zones = proxy.clientZones()!;
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await setup?.stop();
});

const portOf = (listen: string): number => Number(listen.slice(listen.lastIndexOf(':') + 1));

describe('sentinel mode with --max-connections', () => {
  it("/stats counts a client refused on zone 2's primary listener in its node block, its client zone and the totals", async () => {
    const capped = await startSentinelProxy({
      ...{ sentinels: [...setup.sentinelAddresses], sentinelMaster: setup.masterName, zones: 2, clientZones: 2, maxConnections: 1 },
      ...{ control: '127.0.0.1:0', log: () => undefined },
    });
    let held: net.Socket | undefined;
    try {
      const primary = capped.clientZones()![1]!.nodes.find((n) => n.role === 'master')!;
      held = await oneHeldOneRefused(portOf(primary.listen));
      await vi.waitFor(() => expect(capped.stats().connections.refused).toBe(1), { timeout: 5000, interval: 20 });
      const stats = (await (await fetch(`http://${capped.controlAddress}/stats`)).json()) as ReturnType<RedisRttSentinelProxy['stats']>;
      expect(stats.connections.refused).toBe(1);
      const refused = stats.cluster.nodes.map((n) => [n.listen, n.connections.refused]);
      expect(refused).toEqual(stats.cluster.nodes.map((n) => [n.listen, n.listen === primary.listen ? 1 : 0]));
      expect(stats.cluster.clientZones!.map((z) => z.connections.refused)).toEqual([0, 1]);
      const metrics = await (await fetch(`http://${capped.controlAddress}/metrics`)).text();
      expect(metrics).toMatch(/^redis_rtt_connections_refused_total 1$/m);
      expect(metrics.match(/^redis_rtt_node_connections_refused_total\{.* 1$/gm)).toEqual([
        `redis_rtt_node_connections_refused_total{node="${primary.upstream}",client_zone="2"} 1`,
      ]);
      // A role series per node, not per client zone's listener: the same series twice is refused by Prometheus.
      expect(metrics.match(/^redis_rtt_sentinel_node_role\{.*role="master"\} 1$/gm)).toEqual([`redis_rtt_sentinel_node_role{node="${primary.upstream}",role="master"} 1`]);
      expect(promtoolCheck(metrics)).toEqual({ status: 0, output: '' });
    } finally {
      held?.destroy();
      await capped.close();
    }
  });
});

describe('sentinel mode with --client-zones 3', () => {
  it('each zone has a listener per sentinel and data node, the first sentinel its seed; the link follows the set', () => {
    expect(zones.map((z) => z.zone)).toEqual([1, 2, 3]);
    expect(new Set(zones.flatMap((z) => z.nodes.map((n) => n.listen))).size).toBe(zones[0]!.nodes.length * 3);
    for (const z of zones) {
      expect(z.nodes.filter((n) => n.role === 'sentinel')).toHaveLength(3);
      expect(z.nodes.filter((n) => n.role === 'master')).toHaveLength(1);
      expect(z.seed).toBe(z.nodes[0]!.listen);
      for (const n of z.nodes) expect(n.link, `${n.role} in zone ${n.zone}`).toBe(n.zone === z.zone ? `rtt=${SAME_MS}ms` : `rtt=${CROSS_MS}ms`);
    }
  });

  it("a listener's log lines name its client zone: each zone has a listener per node, whose lines read alike but for it", async () => {
    const lines: string[] = [];
    const other = await startSentinelProxy({
      ...{ sentinels: [...setup.sentinelAddresses], sentinelMaster: setup.masterName, zones: 3, clientZones: 3 },
      ...{ link: { partition: '10s' }, log: (line: string) => void lines.push(line) },
    });
    const listeners = other.clientZones()!.flatMap((z) => z.nodes.map((n) => `${n.role} in client zone ${z.zone}`));
    await other.close();
    const partitioned = lines.filter((l) => l.includes(': partition for 10000 ms')).map((l) => l.slice(0, l.indexOf(': partition')));
    expect(partitioned).toHaveLength(listeners.length);
    for (const zone of [1, 2, 3]) expect(partitioned.filter((l) => l.endsWith(`(client zone ${zone})`)), partitioned.join('\n')).toHaveLength(listeners.length / 3);
  });

  it("an ioredis sentinel client on zone 2's seed learns zone 2's listeners, pays zone 2's link to the primary, and stays on zone 2's listeners", async () => {
    const z2 = zones[1]!;
    const primary = z2.nodes.find((n) => n.role === 'master')!;
    const replies = await untilPong(net.connect({ host: '127.0.0.1', port: portOf(z2.seed) }), [
      ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', setup.masterName],
      ['SENTINEL', 'REPLICAS', setup.masterName],
      ['SENTINEL', 'SENTINELS', setup.masterName],
      ['PING'],
    ]);
    expect(replies).toContain(`$${String(portOf(primary.listen)).length}\r\n${portOf(primary.listen)}\r\n`);
    const otherZones = [zones[0]!, zones[2]!].flatMap((z) => z.nodes.map((n) => portOf(n.listen)));
    const elsewhere = [...[...setup.nodes, ...setup.sentinels].map((x) => x.port!), ...otherZones];
    expect(elsewhere.filter((p) => new RegExp(`\\b${p}\\b`).test(replies))).toEqual([]);
    const c = new Redis({ sentinels: [{ host: '127.0.0.1', port: portOf(z2.seed) }], name: setup.masterName });
    c.on('error', () => undefined);
    try {
      await c.set('zone2', 'v');
      const ms: number[] = [];
      for (let i = 0; i < 15; i++) {
        const t0 = performance.now();
        await c.get('zone2');
        ms.push(performance.now() - t0);
      }
      // The tolerance test/cluster/clients.test.ts states: median within -5% / +25% of the link.
      const rttMs = primary.zone === 2 ? SAME_MS : CROSS_MS;
      const m = median(ms);
      expect(m, `median ${m.toFixed(2)} ms, primary in zone ${primary.zone}`).toBeGreaterThanOrEqual(rttMs * 0.95);
      expect(m, `median ${m.toFixed(2)} ms, primary in zone ${primary.zone}`).toBeLessThanOrEqual(rttMs * 1.25);
      const conns = proxy.connections() as { clientZone?: number }[];
      // ioredis closes its sentinel connection once it has the primary: the primary's one is left.
      expect(conns.length).toBeGreaterThanOrEqual(1);
      expect(new Set(conns.map((x) => x.clientZone))).toEqual(new Set([2]));
      expect(await directClients(setup, proxy)).toEqual([]);
      const split = proxy.stats().cluster.clientZones!;
      expect(split[1]!.commands.GET!.count).toBe(15);
      expect(split[0]!.totals.commands + split[2]!.totals.commands).toBe(0);
    } finally {
      c.disconnect();
    }
  });
});
