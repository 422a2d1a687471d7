import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { rawCommands, startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { rawField } from '../../src/redis/raw-command.js';
import { startPrivateSentinel, type PrivateSentinel } from '../../src/redis/private-sentinel.js';
import type { RedisRttSentinelProxy } from '../../src/sentinel/sentinel-proxy.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';
import { twoFreePorts } from './helpers.js';

// One sentinel (the seed, on --listen), a primary and a replica, each with one of the two ports of
// --listen-ports. A replica added later has no port left: every reply that names it tries to open
// a listener for it again.

let setup: PrivateSentinel;
let proxy: RedisRttSentinelProxy;
let extra: PrivateRedis;
const lines: string[] = [];

beforeAll(async () => {
  setup = await startPrivateSentinel({ replicas: 1, sentinels: 1 });
  const port = await twoFreePorts();
  proxy = await startSentinelProxy({
    sentinels: [...setup.sentinelAddresses],
    sentinelMaster: setup.masterName,
    listenPorts: `${port}-${port + 1}`,
    log: (line) => lines.push(line),
  });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await extra?.stop();
  await setup?.stop();
});

it('a node that cannot get a listener is named once, not once per reply that names it', async () => {
  const primary = setup.nodes[0]!;
  extra = await startPrivateRedis();
  await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: extra.port! }, [['REPLICAOF', '127.0.0.1', String(primary.port)]]);
  const sentinel = { kind: 'tcp' as const, host: '127.0.0.1', port: setup.sentinels[0]!.port! };
  // The sentinel learns of a replica from the primary's INFO, which it reads every 10 s.
  await vi.waitFor(
    async () => {
      const [replicas] = await rawCommands(sentinel, [['SENTINEL', 'REPLICAS', setup.masterName]], 2000);
      expect(replicas?.items).toHaveLength(2);
    },
    { timeout: 25_000, interval: 500 },
  );
  const at = { kind: 'tcp' as const, host: proxy.host!, port: proxy.port! };
  let replicas: Awaited<ReturnType<typeof rawCommands>>[number] | undefined;
  for (let i = 0; i < 5; i++) [replicas] = await rawCommands(at, [['SENTINEL', 'REPLICAS', setup.masterName]], 5000);
  // The replica with no port keeps its real address; the rest of the reply still names listeners (it was passed
  // whole, sending clients to the primary and the first replica directly).
  const listen = (p: PrivateRedis): string => String(proxy.nodes().find((n) => n.upstream === p.address)!.listen.split(':')[1]);
  const ports = (replicas?.items ?? []).map((e) => [rawField(e, 'port'), rawField(e, 'master-port')]);
  expect(ports.sort()).toEqual([[listen(setup.nodes[1]!), listen(primary)], [String(extra.port), listen(primary)]].sort());
  const said = lines.filter((l) => l.startsWith('could not open a listener'));
  expect(said).toEqual([expect.stringMatching(new RegExp(`^could not open a listener for 127\\.0\\.0\\.1:${extra.port}: .*no free port left`))]);
}, 40_000);
