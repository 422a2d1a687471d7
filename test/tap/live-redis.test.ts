import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NO_DELAY } from '../../src/link/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startTappedPipe, type TappedPipe } from './tapped-pipe.js';

let redis: PrivateRedis;
let pipe: TappedPipe;

beforeAll(async () => {
  redis = await startPrivateRedis({ transport: 'unix' });
  pipe = await startTappedPipe({ path: redis.socketPath as string });
});

afterAll(async () => {
  await pipe?.close();
  await redis?.stop();
});

function connect(protocol: 2 | 3): Redis {
  return new Redis({ host: '127.0.0.1', port: pipe.port, protocol, lazyConnect: true, maxRetriesPerRequest: 0 });
}

/** Waits until every live connection has nothing outstanding (write callbacks are async). */
const settled = (): Promise<boolean> =>
  vi.waitUntil(() => pipe.collector.connectionsInfo().every((c) => c.outstanding === 0), { timeout: 3000, interval: 5 });

describe.each([2, 3] as const)('tap end to end with ioredis, RESP%s', (protocol) => {
  it('counts a sequential loop as N round trips and a pipeline as one', async () => {
    pipe.collector.reset();
    const c = connect(protocol);
    await c.connect();
    await c.ping();
    await settled();
    const before = pipe.collector.snapshot(NO_DELAY).totals;
    for (let i = 0; i < 20; i++) await c.set(`k${i}`, 'v');
    const p = c.pipeline();
    for (let i = 0; i < 50; i++) p.get(`k${i % 20}`);
    await p.exec();
    await settled();
    const after = pipe.collector.snapshot(NO_DELAY).totals;
    expect(after.commands - before.commands).toBe(70);
    expect(after.roundTrips - before.roundTrips).toBe(21);
    expect(after.maxDepth).toBeGreaterThanOrEqual(50);
    expect(after.unparsedBytes).toBe(0);
    const info = pipe.collector.connectionsInfo().at(-1);
    expect(info).toMatchObject({ protocol, desynced: false, outstanding: 0, mode: 'normal' });
    c.disconnect();
  });

  it('follows pub/sub: confirmations answer SUBSCRIBE, messages are pushes, nothing left outstanding', async () => {
    pipe.collector.reset();
    const sub = connect(protocol);
    const pub = connect(protocol);
    await sub.connect();
    await pub.connect();
    const got: string[] = [];
    sub.on('message', (_ch: string, m: string) => got.push(m));
    await sub.subscribe('a', 'b');
    await pub.publish('a', 'one');
    await pub.publish('b', 'two');
    await vi.waitUntil(() => got.length >= 2, { timeout: 3000, interval: 5 });
    await sub.ping();
    await sub.unsubscribe();
    await settled();
    const s = pipe.collector.snapshot(NO_DELAY);
    expect(s.totals.pushes).toBe(2);
    expect(s.commands['SUBSCRIBE']?.clientUs.count).toBe(1);
    expect(s.commands['UNSUBSCRIBE']?.clientUs.count).toBe(1);
    const infos = pipe.collector.connectionsInfo();
    expect(infos.every((c) => c.outstanding === 0 && !c.desynced)).toBe(true);
    sub.disconnect();
    pub.disconnect();
  });

  it('keeps a blocking BLPOP apart and counts a MULTI batch as B+2 commands', async () => {
    pipe.collector.reset();
    const c = connect(protocol);
    await c.connect();
    await c.blpop('nothing', 0.05);
    await c.multi().set('x', '1').incr('x').exec();
    await settled();
    const s = pipe.collector.snapshot(NO_DELAY);
    expect(s.totals.blockingCommands).toBe(1);
    expect(s.commands['BLPOP']).toMatchObject({ count: 1, blocking: true });
    expect(s.commands['BLPOP']?.serverUs.p50).toBeGreaterThanOrEqual(40_000);
    expect(s.commands['MULTI']?.count).toBe(1);
    expect(s.commands['EXEC']?.count).toBe(1);
    c.disconnect();
  });

  it('a BLPOP queued in MULTI counts under "BLPOP QUEUED": the real BLPOP\'s entry stays blocking, its waits alone', async () => {
    pipe.collector.reset();
    const c = connect(protocol);
    const pusher = connect(protocol);
    await c.connect();
    await pusher.connect();
    const list = `queued-blpop-${protocol}`;
    await c.multi().blpop(list, 0).exec();
    const popped = c.blpop(list, 0);
    await pusher.lpush(list, 'v');
    expect(await popped).toEqual([list, 'v']);
    await settled();
    const s = pipe.collector.snapshot(NO_DELAY);
    expect(s.totals.blockingCommands).toBe(1);
    expect(s.commands['BLPOP']).toMatchObject({ count: 1, blocking: true, clientUs: { count: 1 } });
    expect(s.commands['BLPOP QUEUED']).toMatchObject({ count: 1, clientUs: { count: 1 } });
    expect(s.commands['BLPOP QUEUED']?.blocking).toBeUndefined();
    c.disconnect();
    pusher.disconnect();
  });
});

// docs/counters.md "A replica syncing through the proxy": PSYNC's answer (keepalive newlines, +FULLRESYNC, the RDB,
// the propagated writes) is no RESP reply; the tap desyncs there and counts, it does not correlate. Pinned here.
describe('a replica syncing through the tap', () => {
  it('syncs byte for byte; the connection is desynced with PSYNC outstanding, the stream unparsed, its ACKs commands', async () => {
    const master = new Redis({ path: redis.socketPath as string, lazyConnect: true, maxRetriesPerRequest: 0 });
    const replica = await startPrivateRedis();
    const r = new Redis({ port: replica.port!, lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await master.connect();
      await r.connect();
      // A diskless sync that starts at once (7.0 waits 5 s for more replicas by default).
      await master.config('SET', 'repl-diskless-sync-delay', '0');
      await master.set('repl:before', 'rdb');
      pipe.collector.reset();
      await r.call('REPLICAOF', '127.0.0.1', String(pipe.port));
      await vi.waitUntil(async () => (await r.info('replication')).includes('master_link_status:up'), { timeout: 5000, interval: 20 });
      await master.set('repl:after', 'stream');
      await vi.waitUntil(async () => (await r.get('repl:after')) === 'stream', { timeout: 3000, interval: 5 });
      expect(await r.get('repl:before')).toBe('rdb');
      const conn = pipe.collector.connectionsInfo().find((c) => c.desynced);
      // With no sync delay +FULLRESYNC comes first and answers PSYNC (keepalive newlines before it leave PSYNC outstanding).
      expect(conn).toMatchObject({ outstanding: 0, mode: 'normal', replication: true });
      // The RDB ($EOF:<mark>, then the data) and the propagated SET went by unparsed, and no reply was invented for them.
      expect(conn!.counters.unparsedBytes).toBeGreaterThan(40);
      const s = pipe.collector.snapshot(NO_DELAY);
      expect(s.commands['PSYNC']).toMatchObject({ count: 1, clientUs: expect.objectContaining({ count: 1 }) });
      // listening-port and capa are answered and timed; the REPLCONF ACKs after the sync are counted, never answered.
      expect(s.commands['REPLCONF']!.clientUs.count).toBe(2);
      expect(s.commands['REPLCONF']!.count).toBeGreaterThan(2);

      // A partial resync: the master drops the replica, which comes back with PSYNC <replid> <offset> and gets
      // +CONTINUE, then the master's writes as RESP arrays. They matched the replica's REPLCONF ACKs as replies
      // (latencies of seconds, the ACKs piling up outstanding); now matching stops at +CONTINUE, as at +FULLRESYNC.
      pipe.collector.reset();
      const first = conn!.id;
      await master.call('CLIENT', 'KILL', 'TYPE', 'replica');
      await vi.waitUntil(() => pipe.collector.connectionsInfo().some((c) => c.id !== first && c.replication === true && c.closedAtMs === undefined), {
        timeout: 5000,
        interval: 10,
      });
      for (let i = 0; i < 5; i++) await master.set('repl:again', String(i));
      await vi.waitUntil(async () => (await r.get('repl:again')) === '4', { timeout: 3000, interval: 5 });
      await master.call('WAIT', '1', '1000');
      const again = pipe.collector.connectionsInfo().find((c) => c.id !== first && c.replication === true)!;
      expect(again).toMatchObject({ desynced: true, outstanding: 0 });
      const after = pipe.collector.snapshot(NO_DELAY).commands;
      expect(after['PSYNC']).toMatchObject({ count: 1, clientUs: expect.objectContaining({ count: 1 }) });
      // Only the handshake's two REPLCONFs (listening-port, capa) are timed; the ACKs after +CONTINUE are not.
      expect(after['REPLCONF']!.clientUs.count).toBe(2);
      expect(again.counters.replies).toBe(4);
    } finally {
      await r.call('REPLICAOF', 'NO', 'ONE').catch(() => undefined);
      r.disconnect();
      master.disconnect();
      await replica.stop();
    }
  });
});
