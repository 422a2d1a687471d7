import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { ConfigError } from '../../src/errors.js';
import { startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';
import { startPrivateSentinel } from '../../src/redis/private-sentinel.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';

let cluster: PrivateCluster;
let proxy: RedisRttClusterProxy | undefined;
beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 0 });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await cluster?.stop();
});

const base = { cluster: 'on' as const, compensationUs: { up: 0, down: 0 }, log: () => {} };

describe('link.partition at start in cluster and Sentinel mode', () => {
  it('cluster: startProxy({ link: { partition } }) cuts every node\'s link from the start, as a single node\'s', async () => {
    proxy = (await startProxy({ ...base, upstream: cluster.address, link: { rttUs: 1000, partition: '10s', then: 'reset' } })) as RedisRttClusterProxy;
    const nodes = proxy.stats().cluster.nodes;
    expect(nodes).toHaveLength(3);
    for (const n of nodes) expect(n.partition).toMatchObject({ active: true, durationMs: 10_000, then: 'reset' });
    // The nodes' links keep their name: the partition is not a PUT /link.
    for (const n of proxy.nodes()) expect(n.link).toBe('link');
  }, 60_000);

  it('cluster: PUT /link?node= with a partition alone cuts those nodes and leaves every node\'s link name as it was', async () => {
    const p = (await startProxy({ ...base, upstream: cluster.address, link: { rttUs: 1000 }, control: '127.0.0.1:0' })) as RedisRttClusterProxy;
    try {
      const seed = p.nodes()[0]!;
      const res = await fetch(`http://${p.controlAddress}/link?node=${seed.upstream}`, { method: 'PUT', body: JSON.stringify({ partition: '10s' }) });
      expect(res.status).toBe(200);
      for (const n of p.stats().cluster.nodes) {
        expect(n.link).toBe('link');
        expect(n.linkSettings.upUs + n.linkSettings.downUs).toBe(1000);
        if (n.upstream === seed.upstream) expect(n.partition?.active).toBe(true);
        else expect(n.partition).toBeUndefined();
      }
    } finally {
      await p.close();
    }
  }, 60_000);

  it('Sentinel: startSentinelProxy({ link: { partition } }) cuts every sentinel\'s and node\'s link from the start', async () => {
    const setup = await startPrivateSentinel({ replicas: 1, sentinels: 1 });
    try {
      const p = await startSentinelProxy({ sentinels: [...setup.sentinelAddresses], sentinelMaster: setup.masterName, link: { partition: '10s' }, log: () => {} });
      try {
        const nodes = p.stats().cluster.nodes;
        // The sentinel, the primary and its replica.
        expect(nodes).toHaveLength(3);
        for (const n of nodes) expect(n.partition).toMatchObject({ active: true, durationMs: 10_000, then: 'heal' });
      } finally {
        await p.close();
      }
    } finally {
      await setup.stop();
    }
  }, 60_000);

  it('cluster and Sentinel: a bad link.partition or a link.then alone is refused before anything starts, naming the key', async () => {
    const refusal = async (start: Promise<unknown>): Promise<ConfigError> => {
      const err = await start.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      return err as ConfigError;
    };
    expect((await refusal(startProxy({ ...base, upstream: cluster.address, link: { partition: '0s' } }))).flag).toBe('link.partition');
    expect((await refusal(startProxy({ ...base, upstream: cluster.address, link: { then: 'reset' } }))).message).toBe(
      'link.then: invalid value "reset"; expected then only with partition',
    );
    // No sentinel listens on port 1: the refusal comes before any is asked.
    const sentinel = { sentinels: ['127.0.0.1:1'], sentinelMaster: 'mymaster', log: () => {} };
    expect((await refusal(startSentinelProxy({ ...sentinel, link: { then: 'heal' } }))).flag).toBe('link.then');
  });
});
