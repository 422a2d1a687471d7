import type net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import type { RedisRttSentinelProxy } from '../../src/sentinel/sentinel-proxy.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';
import { fakeServer, type FakeServer } from '../hardening/helpers/fake-server.js';
import { twoFreePorts } from './helpers.js';

// A sentinel that leads a failover answers GET-MASTER-ADDR-BY-NAME with the promoted replica while
// its SENTINEL REPLICAS still lists that replica and no longer lists the old primary, until every
// other replica has resynced (seconds; up to failover-timeout). A fake sentinel holds that state
// for as long as the test needs: a real one leaves it on its own schedule.

type Address = { host: string; port: number };
const state: { primary?: Address; replicas: Address[] } = { replicas: [] };

const bulk = (s: string): string => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
const array = (items: string[]): string => `*${items.length}\r\n${items.join('')}`;
const entry = (a: Address, flags: string): string =>
  array(['name', `${a.host}:${a.port}`, 'ip', a.host, 'port', String(a.port), 'flags', flags].map(bulk));

function reply(args: string[]): string {
  const sub = `${args[0]} ${args[1] ?? ''}`.toUpperCase();
  if (sub.startsWith('PING')) return '+PONG\r\n';
  if (sub === 'SENTINEL GET-MASTER-ADDR-BY-NAME') return state.primary ? array([bulk(state.primary.host), bulk(String(state.primary.port))]) : '*-1\r\n';
  if (sub === 'SENTINEL REPLICAS') return array(state.replicas.map((r) => entry(r, 'slave')));
  if (sub === 'SENTINEL SENTINELS') return '*0\r\n';
  if (sub === 'SENTINEL MASTERS') return array([array(['name', 'mymaster'].map(bulk))]);
  return '+OK\r\n';
}

/** Answers each RESP array of bulk strings with reply(): enough for the proxy's own readings. */
function serve(socket: net.Socket): void {
  let buf = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const text = buf.toString('latin1');
      const m = /^\*(\d+)\r\n/.exec(text);
      if (!m) return;
      let at = m[0].length;
      const args: string[] = [];
      for (let i = 0; i < Number(m[1]); i++) {
        const len = /^\$(\d+)\r\n/.exec(text.slice(at));
        if (!len || text.length < at + len[0].length + Number(len[1]) + 2) return;
        at += len[0].length;
        args.push(text.slice(at, at + Number(len[1])));
        at += Number(len[1]) + 2;
      }
      buf = buf.subarray(at);
      socket.write(reply(args));
    }
  });
}

let sentinel: FakeServer;
let nodes: PrivateRedis[];
let proxy: RedisRttSentinelProxy;
const at = (p: PrivateRedis): Address => ({ host: '127.0.0.1', port: p.port! });

beforeAll(async () => {
  nodes = await Promise.all([startPrivateRedis(), startPrivateRedis(), startPrivateRedis()]);
  state.primary = at(nodes[0]!);
  state.replicas = [at(nodes[1]!), at(nodes[2]!)];
  sentinel = await fakeServer(serve);
  // No refresh of its own during the test: each reading is the test's refreshTopology().
  proxy = await startSentinelProxy({ sentinels: [sentinel.address], sentinelMaster: 'mymaster', sentinelRefreshMs: 3_600_000, log: () => undefined });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await sentinel?.close();
  await Promise.all((nodes ?? []).map((n) => n.stop()));
});

const roles = (): Record<string, string> => Object.fromEntries(proxy.nodes().filter((n) => n.role !== 'sentinel').map((n) => [n.upstream, n.role]));

it('while the leader names the promoted replica as primary and still lists it as a replica, the reading names it master, and the old primary no longer', async () => {
  const [a, b, c] = nodes.map((n) => n.address);
  expect(roles()).toEqual({ [a!]: 'master', [b!]: 'replica', [c!]: 'replica' });
  expect(proxy.stats().sentinel.primary).toBe(a);
  // The gap: B promoted, REPLICAS still [B, C], A not listed (killed, or still up until reconfigured).
  state.primary = at(nodes[1]!);
  await proxy.refreshTopology();
  expect(proxy.stats().sentinel.primary).toBe(b);
  expect(roles()).toEqual({ [a!]: 'unknown', [b!]: 'master', [c!]: 'replica' });
  // A role selector picks the primary the reading named, and only it.
  proxy.setLink({ rttUs: 2000 }, 'masters');
  expect(proxy.nodes().filter((n) => n.linkSettings.upUs === 1000).map((n) => n.upstream)).toEqual([b]);
  // +switch-master: REPLICAS lists A and C.
  state.replicas = [at(nodes[0]!), at(nodes[2]!)];
  await proxy.refreshTopology();
  expect(roles()).toEqual({ [a!]: 'replica', [b!]: 'master', [c!]: 'replica' });
});

it('a replica with no port left in --listen-ports does not freeze the roles: the next primary is master, /stats follows', async () => {
  // Two ports: the primary's and the first replica's. A replica first listed later gets none.
  state.primary = at(nodes[0]!);
  state.replicas = [at(nodes[1]!)];
  const from = await twoFreePorts();
  const lines: string[] = [];
  const log = (line: string): number => lines.push(line);
  const full = await startSentinelProxy({ sentinels: [sentinel.address], sentinelMaster: 'mymaster', sentinelRefreshMs: 3_600_000, listenPorts: `${from}-${from + 1}`, log });
  try {
    const [a, b, c] = nodes.map((n) => n.address);
    state.primary = at(nodes[1]!);
    state.replicas = [at(nodes[0]!), at(nodes[2]!)];
    await full.refreshTopology();
    expect(lines.filter((l) => l.startsWith('sentinel refresh failed'))).toEqual([expect.stringContaining(`no free port left for node ${c}`)]);
    // The reading's failure to open C held every label back: A stayed master, B replica.
    const now = Object.fromEntries(full.nodes().filter((n) => n.role !== 'sentinel').map((n) => [n.upstream, n.role]));
    expect(now).toEqual({ [a!]: 'replica', [b!]: 'master' });
    expect(full.stats().sentinel.primary).toBe(b);
  } finally {
    await full.close();
  }
});

it('a reading in which every sentinel names the new primary is no disagreement: none logged, none counted', async () => {
  // Three sentinels that answer alike: the refresh took their answers one at a time, and logged two disagreements.
  const more = await Promise.all([fakeServer(serve), fakeServer(serve)]);
  const lines: string[] = [];
  state.primary = at(nodes[0]!);
  state.replicas = [at(nodes[1]!), at(nodes[2]!)];
  const sentinels = [sentinel.address, ...more.map((m) => m.address)];
  const three = await startSentinelProxy({ sentinels, sentinelMaster: 'mymaster', sentinelRefreshMs: 3_600_000, log: (line) => void lines.push(line) });
  try {
    state.primary = at(nodes[1]!);
    state.replicas = [at(nodes[0]!), at(nodes[2]!)];
    await three.refreshTopology();
    expect(three.stats().sentinel).toMatchObject({ primary: nodes[1]!.address, disagree: false, disagreements: 0 });
    expect(lines.filter((l) => l.includes('disagree'))).toEqual([]);
  } finally {
    await three.close();
    await Promise.all(more.map((m) => m.close()));
  }
});
