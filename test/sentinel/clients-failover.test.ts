import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { createSentinel } from 'redis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { rawCommands } from '../../src/redis/index.js';
import { startPrivateSentinel, type PrivateSentinel } from '../../src/redis/private-sentinel.js';
import type { RedisRttSentinelProxy } from '../../src/sentinel/sentinel-proxy.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';
import { promtoolCheck } from '../helpers/promtool.js';
import { directClients, primaryPort } from './helpers.js';

const run = promisify(execFile);

/**
 * What each Sentinel client is told through a real SENTINEL FAILOVER (1 primary, 1 replica, 3 sentinels):
 * ioredis, node-redis in RESP2 and RESP3, redis-py, and raw RESP2 and RESP3 subscribers of +switch-master, every
 * address one of the proxy's listeners; and /metrics' sentinel families before and after.
 */
let setup: PrivateSentinel;
let proxy: RedisRttSentinelProxy;

beforeAll(async () => {
  setup = await startPrivateSentinel({ replicas: 1, sentinels: 3, downAfterMs: 1000, failoverTimeoutMs: 5000 });
  proxy = await startSentinelProxy({ sentinels: [...setup.sentinelAddresses], sentinelMaster: 'mymaster', control: '127.0.0.1:0', log: () => undefined });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await setup?.stop();
});

const metrics = async (): Promise<string> => (await fetch(`http://${proxy.controlAddress}/metrics`)).text();
const listenerOf = (real: number): string => proxy.nodes().find((n) => n.upstream === `127.0.0.1:${real}`)!.listen;
/** The port numbers in `text` that are a real node's or sentinel's. */
const realPorts = (text: string): string[] => {
  const real = new Set([...setup.nodes, ...setup.sentinels].map((p) => String(p.port)));
  return [...text.matchAll(/\d+/g)].map((m) => m[0]).filter((p) => real.has(p));
};

/** A raw subscriber of +switch-master on a sentinel listener, RESP2 or RESP3 (HELLO 3): everything it reads. */
function subscriber(port: number, resp3: boolean): { read: () => string; close: () => void } {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d: Buffer) => void (text += d.toString()));
  socket.write(`${resp3 ? '*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n' : ''}*2\r\n$9\r\nSUBSCRIBE\r\n$14\r\n+switch-master\r\n`);
  return { read: () => text, close: () => socket.destroy() };
}

const PY = `
import json, sys
from redis.sentinel import Sentinel
s = Sentinel([(sys.argv[1], int(sys.argv[2]))], socket_timeout=2)
m = s.master_for('mymaster', socket_timeout=2)
m.set('py:' + sys.argv[3], '1')
print(json.dumps({'master': list(s.discover_master('mymaster')), 'replicas': [list(r) for r in s.discover_slaves('mymaster')],
  'sentinels': [[x['ip'], x['port']] for x in s.sentinels[0].sentinel_sentinels('mymaster')],
  'connected': m.connection_pool.get_connection('SET').port}))
`;

it('ioredis, node-redis (RESP2 and RESP3), redis-py and +switch-master subscribers are told listeners only; /metrics follows the failover', async () => {
  const before = await primaryPort(setup);
  const seed = { host: proxy.host!, port: proxy.port! };
  const first = await metrics();
  expect(first).toContain(`redis_rtt_sentinel_primary_info{master="mymaster",node="127.0.0.1:${before}"} 1\n`);
  expect(first).toContain('redis_rtt_sentinel_failovers_total{master="mymaster"} 0\n');
  expect(first).toContain(`redis_rtt_sentinel_node_role{node="127.0.0.1:${before}",role="master"} 1\n`);
  expect(promtoolCheck(first)).toEqual({ status: 0, output: '' });

  const subs = [subscriber(seed.port, false), subscriber(seed.port, true)];
  const io = new Redis({ sentinels: [seed], name: 'mymaster', failoverDetector: true });
  io.on('error', () => undefined);
  const nr = [2, 3].map((resp) => {
    const c = createSentinel({ name: 'mymaster', sentinelRootNodes: [seed], RESP: resp as 2 | 3 });
    c.on('error', () => undefined);
    return c;
  });
  try {
    await Promise.all([io.set('io:before', '1'), ...nr.map(async (c) => (await c.connect(), await c.set('nr:before', '1')))]);
    const py = async (tag: string): Promise<{ master: [string, number]; replicas: [string, number][]; sentinels: [string, string][]; connected: number }> =>
      JSON.parse((await run('/usr/bin/python3', ['-c', PY, seed.host, String(seed.port), tag], { timeout: 15_000 })).stdout) as never;
    const pyBefore = await py('before');
    expect(`${pyBefore.master[0]}:${pyBefore.master[1]}`).toBe(listenerOf(before));
    expect(realPorts(JSON.stringify(pyBefore))).toEqual([]);

    const sentinelAt = { kind: 'tcp' as const, host: '127.0.0.1', port: setup.sentinels[0]!.port! };
    expect((await rawCommands(sentinelAt, [['SENTINEL', 'FAILOVER', 'mymaster']]))[0]?.text).toBe('OK');
    await vi.waitFor(async () => expect(await primaryPort(setup)).not.toBe(before), { timeout: 15_000, interval: 50 });
    const after = await primaryPort(setup);
    const switched = `mymaster ${listenerOf(before).replace(':', ' ')} ${listenerOf(after).replace(':', ' ')}`;
    await vi.waitFor(() => expect(subs.map((s) => s.read().includes(switched))).toEqual([true, true]), { timeout: 15_000, interval: 50 });
    for (const s of subs) expect(realPorts(s.read())).toEqual([]);
    // Each client writes on the new primary, through its listener.
    await vi.waitFor(
      async () => {
        expect(await io.set('io:after', '1')).toBe('OK');
        expect(`127.0.0.1:${io.stream.remotePort}`).toBe(listenerOf(after));
        for (const c of nr) expect(await c.set('nr:after', '1')).toBe('OK');
        const pyAfter = await py('after');
        expect(`${pyAfter.master[0]}:${pyAfter.master[1]}`).toBe(listenerOf(after));
        expect(realPorts(JSON.stringify(pyAfter))).toEqual([]);
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(await directClients(setup, proxy)).toEqual([]);
    await vi.waitFor(async () => {
      const text = await metrics();
      expect(text).toContain(`redis_rtt_sentinel_primary_info{master="mymaster",node="127.0.0.1:${after}"} 1\n`);
      expect(text).toContain('redis_rtt_sentinel_failovers_total{master="mymaster"} 1\n');
      expect(text).toContain(`redis_rtt_sentinel_node_role{node="127.0.0.1:${after}",role="master"} 1\n`);
      expect(text).toContain(`redis_rtt_sentinel_node_role{node="127.0.0.1:${before}",role="replica"} 1\n`);
      expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
    }, { timeout: 10_000, interval: 100 });
  } finally {
    io.disconnect();
    await Promise.all(nr.map((c) => c.close().catch(() => undefined)));
    for (const s of subs) s.close();
  }
}, 60_000);
