import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';

let cluster: PrivateCluster;
let proxy: RedisRttClusterProxy | undefined;
let moving: RedisRttClusterProxy | undefined;
beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 0 });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await moving?.close();
  await cluster?.stop();
});

describe('cluster mode: loss, partitions and a moving link in /stats and /metrics', () => {
  it('sums every node\'s loss counts into `loss`, as a single-node proxy shows them, and /metrics has them', async () => {
    proxy = (await startProxy({
      upstream: cluster.address,
      cluster: 'on',
      link: { rttUs: 200, lossUp: 0.1 },
      seed: 3,
      control: '127.0.0.1:0',
      compensationUs: { up: 0, down: 0 },
      log: () => {},
    })) as RedisRttClusterProxy;
    const client = new Redis.Cluster([{ host: proxy.host, port: proxy.port }], { lazyConnect: true });
    try {
      await client.connect();
      for (let i = 0; i < 30; i++) expect(await client.set(`k${i}`, 'v')).toBe('OK');
    } finally {
      client.disconnect();
    }
    const loss = proxy.stats().loss;
    // 30 SETs and the client's own commands went up, spread over the three nodes: each a small
    // chunk, one segment; at 10% loss (seeded) some were lost and resent.
    expect(loss?.up.segments).toBeGreaterThanOrEqual(30);
    expect(loss?.up.lost).toBeGreaterThan(0);
    expect(loss?.up.retransmitted).toBe(loss?.up.lost);
    expect(loss?.down).toEqual({ segments: 0, lost: 0, retransmitted: 0, retransmitNs: 0 });

    const res = await fetch(`http://${proxy.controlAddress}/stats`);
    const body = (await res.json()) as { loss?: typeof loss };
    expect(body.loss?.up.segments).toBe(loss!.up.segments);
    const metrics = await (await fetch(`http://${proxy.controlAddress}/metrics`)).text();
    expect(metrics).toContain(`redis_rtt_loss_segments_total{direction="up"} ${loss!.up.segments}`);
    expect(metrics).toContain(`redis_rtt_loss_lost_total{direction="up"} ${loss!.up.lost}`);
    expect(metrics).toContain('redis_rtt_link_loss_ratio{direction="up"} 0.1');
  }, 60_000);

  it('shows each node\'s partition, timeline and loss in cluster.nodes, a partition only on the nodes it was given to', async () => {
    moving = (await startProxy({
      upstream: cluster.address,
      cluster: 'on',
      link: { rttUs: 2000, lossDown: 0.01 },
      rttWave: 'square:10s:1ms',
      control: '127.0.0.1:0',
      compensationUs: { up: 0, down: 0 },
      log: () => {},
    })) as RedisRttClusterProxy;
    const seed = moving.nodes()[0]!;
    moving.setLink({ partition: '10s' }, seed.upstream);
    const res = await fetch(`http://${moving.controlAddress}/stats`);
    const body = (await res.json()) as ReturnType<RedisRttClusterProxy['stats']>;
    expect(body.cluster.nodes).toHaveLength(3);
    for (const n of body.cluster.nodes) {
      expect(n.timeline?.wave).toEqual({ shape: 'square', periodUs: 10_000_000, amplitudeUs: 1000 });
      // The square wave's first half: +1 ms of RTT, half each way.
      expect(n.timeline?.delaysUs).toEqual({ upUs: 1500, downUs: 1500 });
      expect(n.loss?.down.segments).toBe(0);
      if (n.upstream === seed.upstream) expect(n.partition).toMatchObject({ active: true, durationMs: 10_000, then: 'heal', resetConnections: 0 });
      else expect(n.partition).toBeUndefined();
    }
  }, 60_000);
});
