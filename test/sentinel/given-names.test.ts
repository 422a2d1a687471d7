import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateSentinel, type PrivateSentinel } from '../../src/redis/private-sentinel.js';
import type { RedisRttSentinelProxy } from '../../src/sentinel/sentinel-proxy.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';
import { untilPong } from '../cluster/helpers.js';

let setup: PrivateSentinel;
let proxy: RedisRttSentinelProxy;
const portOf = (listen: string): number => Number(listen.slice(listen.lastIndexOf(':') + 1));

beforeAll(async () => {
  setup = await startPrivateSentinel({ replicas: 1, sentinels: 3 });
  // The first sentinel by name; the others announce it by IP (127.0.0.1).
  const [first, ...rest] = setup.sentinelAddresses;
  proxy = await startSentinelProxy({
    sentinels: [`localhost:${portOf(first!)}`, ...rest],
    sentinelMaster: setup.masterName,
        log: () => undefined,
  });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await setup?.stop();
});

describe('a sentinel given by a host name', () => {
  it('has one listener, under its given name, though the other sentinels name it by IP; their replies point clients to it', async () => {
    const sentinels = () => proxy.nodes().filter((n) => n.role === 'sentinel');
    expect(sentinels().map((n) => n.id).sort()).toEqual([`localhost:${portOf(setup.sentinelAddresses[0]!)}`, ...setup.sentinelAddresses.slice(1)].sort());
    const named = sentinels().find((n) => n.id.startsWith('localhost:'))!;
    const second = sentinels().find((n) => n.id === setup.sentinelAddresses[1])!;
    const replies = await untilPong(net.connect({ host: '127.0.0.1', port: portOf(second.listen) }), [['SENTINEL', 'SENTINELS', setup.masterName], ['PING']]);
    expect(replies).toContain(`${portOf(named.listen)}\r\n`);
    expect(replies).not.toContain(`${portOf(setup.sentinelAddresses[0]!)}\r\n`);
    // Readings of the other sentinels, which list the first by IP, open no second listener either.
    await setup.sentinels[0]!.stop();
    for (let i = 0; i < 3; i++) await proxy.refreshTopology();
    expect(sentinels()).toHaveLength(3);
  });

  it('an ioredis sentinel client given only the second listener reaches the primary', async () => {
    const second = proxy.nodes().find((n) => n.id === setup.sentinelAddresses[1])!;
    const client = new Redis({ sentinels: [{ host: '127.0.0.1', port: portOf(second.listen) }], name: setup.masterName, lazyConnect: true });
    try {
      await client.connect();
      expect(await client.set('k', 'v')).toBe('OK');
      expect(proxy.nodes().filter((n) => n.role === 'sentinel')).toHaveLength(3);
    } finally {
      client.disconnect();
    }
  });
});

describe('a sentinel given both by name and by IP', () => {
  it('has one listener, the first given one (--listen), and the other sentinels\' replies point clients to it', async () => {
    // Its own setup: the one above stops its first sentinel.
    const both = await startPrivateSentinel({ replicas: 1, sentinels: 2 });
    const [first, second] = both.sentinelAddresses as [string, string];
    const p = await startSentinelProxy({ sentinels: [`localhost:${portOf(first)}`, first, second], sentinelMaster: both.masterName, log: () => undefined });
    try {
      const sentinels = p.nodes().filter((n) => n.role === 'sentinel');
      expect(sentinels.map((n) => n.id).sort()).toEqual([first, second].sort());
      expect(sentinels.find((n) => n.id === first)!.listen).toBe(`${p.host}:${p.port}`);
      const other = sentinels.find((n) => n.id === second)!;
      const replies = await untilPong(net.connect({ host: '127.0.0.1', port: portOf(other.listen) }), [['SENTINEL', 'SENTINELS', both.masterName], ['PING']]);
      expect(replies).toContain(`$${String(p.port).length}\r\n${p.port}\r\n`);
    } finally {
      await p.close();
      await both.stop();
    }
  }, 30_000);
});
