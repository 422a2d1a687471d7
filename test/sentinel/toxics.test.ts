/**
 * Toxics in sentinel mode: a toxic added on the control endpoint goes on every sentinel's and data
 * node's listener, and a replica the sentinels first name later starts with it (docs/sentinel.md).
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { rawCommands, startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startPrivateSentinel, type PrivateSentinel } from '../../src/redis/private-sentinel.js';
import type { RedisRttSentinelProxy } from '../../src/sentinel/sentinel-proxy.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';

let setup: PrivateSentinel;
let extra: PrivateRedis | undefined;
let proxy: RedisRttSentinelProxy | undefined;
beforeAll(async () => {
  setup = await startPrivateSentinel({ replicas: 1, sentinels: 3 });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await extra?.stop();
  await setup?.stop();
});

const tcp = (listen: string) => ({ kind: 'tcp' as const, host: listen.split(':')[0]!, port: Number(listen.split(':')[1]) });

/** What PING answers on each listener, as text ("-..." for an error). */
async function pingOn(listens: readonly string[]): Promise<string[]> {
  return Promise.all(
    listens.map(async (l) => {
      const [r] = await rawCommands(tcp(l), [['PING']], 5000);
      return r?.type === '-' ? `-${r.text}` : String(r?.text);
    }),
  );
}

it('POST /toxics puts a toxic on every sentinel and node listener, and on a replica first named later', { timeout: 60_000 }, async () => {
  proxy = await startSentinelProxy({ sentinels: [...setup.sentinelAddresses], sentinelMaster: 'mymaster', control: '127.0.0.1:0', log: () => {} });
  const p = proxy;
  const added = await fetch(`http://${p.controlAddress}/toxics`, {
    method: 'POST',
    body: JSON.stringify({ name: 'nope', type: 'redis_error', attributes: { commands: ['PING'], error: 'ERR injected' } }),
  });
  expect(added.status).toBe(200);
  const five = p.nodes().map((n) => n.listen);
  expect(p.nodes().map((n) => n.role).sort()).toEqual(['master', 'replica', 'sentinel', 'sentinel', 'sentinel']);
  expect(await pingOn(five)).toEqual(five.map(() => '-ERR injected'));

  extra = await startPrivateRedis({ args: ['--replicaof', '127.0.0.1', String(setup.nodes[0]!.port!)] });
  const extraAt = `127.0.0.1:${extra.port!}`;
  await vi.waitFor(() => expect(p.nodes().find((n) => n.upstream === extraAt)?.role).toBe('replica'), { timeout: 30_000, interval: 100 });
  const listen = p.nodes().find((n) => n.upstream === extraAt)!.listen;
  expect(await pingOn([listen])).toEqual(['-ERR injected']);
});
