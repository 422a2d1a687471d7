/**
 * Client compatibility, protocol side: raw RESP2/RESP3 sessions and node-redis through a plain proxy
 * with a delay each way, each checked three ways: the client got what it gets directly, /stats
 * counts every command, reply, push and round trip exactly, and every command the proxy names is
 * one Redis ran (INFO commandstats, read on a direct connection). What the proxy cannot know is
 * in docs/counters.md (#what-the-proxy-cannot-know).
 */
import { createClient } from 'redis';
import { describe, expect, it, vi } from 'vitest';
import { Raw, WAIT, proxiedRedis, proxyCounted, redisRan, totals } from './clients-counts.js';

const TYPES = ['string', 'integer', 'double', 'bignum', 'null', 'array', 'set', 'map', 'attrib', 'push', 'verbatim', 'true', 'false'];

describe('clients through a proxy with a delay each way: RESP2 and RESP3', () => {
  const env = proxiedRedis(['--enable-debug-command', 'yes']);

  it.each([2, 3])('DEBUG PROTOCOL of every type over RESP%i, one pipeline: Redis\'s bytes, one reply each, the push a push', async (protocol) => {
    const bytes = `HELLO ${protocol}\r\n${TYPES.map((t) => `DEBUG PROTOCOL ${t}\r\n`).join('')}PING\r\n`;
    const direct = await Raw.open(env.redis);
    await direct.send(bytes, '+PONG\r\n');
    const raw = await Raw.open(env.proxy);
    await raw.send(bytes, '+PONG\r\n');
    const sameId = (s: string): string => s.replace(/\$2\r\nid\r\n:\d+\r\n/, '');
    expect(sameId(raw.text)).toBe(sameId(direct.text));
    direct.close();
    raw.close();
    await vi.waitUntil(() => env.proxy.stats().connections.active === 0, WAIT);
    // RESP2 refuses `push` with an error; RESP3 writes a push and then its reply.
    expect(totals(env.proxy)).toEqual({ commands: 15, replies: 15, pushes: protocol === 3 ? 1 : 0, roundTrips: 1, errorReplies: protocol === 2 ? 1 : 0 });
    const ran = await redisRan(env.admin);
    expect(proxyCounted(env.proxy)).toEqual({ HELLO: ran['HELLO']! / 2, 'DEBUG PROTOCOL': ran['DEBUG']! / 2, PING: ran['PING']! / 2 });
  });

  it.each([2, 3])('pub/sub over RESP%i: (P/S)SUBSCRIBE, messages between replies, argument-less unsubscribes', async (protocol) => {
    const raw = await Raw.open(env.proxy);
    await raw.send(`HELLO ${protocol}\r\nSUBSCRIBE a b\r\nPSUBSCRIBE p*\r\nSSUBSCRIBE s\r\n`, '$1\r\ns\r\n:1\r\n');
    await env.admin.publish('a', 'm1');
    await env.admin.publish('pq', 'm2');
    await env.admin.spublish('s', 'm3');
    await vi.waitUntil(() => raw.text.includes('m3'), WAIT);
    // Every unsubscribe at once, UNSUBSCRIBE twice (the second finds nothing), and a PING to end on:
    // +PONG in RESP2 too, the connection out of pub/sub by then.
    await raw.send('UNSUBSCRIBE\r\nPUNSUBSCRIBE\r\nSUNSUBSCRIBE\r\nUNSUBSCRIBE\r\nPING\r\n', '+PONG\r\n');
    raw.close();
    await vi.waitUntil(() => env.proxy.stats().connections.active === 0, WAIT);
    // Replies: HELLO 1, SUBSCRIBE 2, PSUBSCRIBE 1, SSUBSCRIBE 1, UNSUBSCRIBE 2, PUNSUBSCRIBE 1,
    // SUNSUBSCRIBE 1, UNSUBSCRIBE (none left) 1, PING 1.
    expect(totals(env.proxy)).toEqual({ commands: 9, replies: 11, pushes: 3, roundTrips: 2, errorReplies: 0 });
    const ran = await redisRan(env.admin);
    for (const [name, count] of Object.entries(proxyCounted(env.proxy))) expect([name, ran[name]]).toEqual([name, count]);
  });

  it('CLIENT TRACKING: default mode (RESP3 pushes), REDIRECT to a RESP2 subscriber, BCAST; each invalidation a push', async () => {
    const target = await Raw.open(env.proxy);
    await target.send('CLIENT ID\r\n', '\r\n');
    const id = /^:(\d+)\r\n$/.exec(target.text)![1]!;
    await target.send('SUBSCRIBE __redis__:invalidate\r\n', ':1\r\n');
    const redirect = await Raw.open(env.proxy);
    await redirect.send(`CLIENT TRACKING ON REDIRECT ${id}\r\nGET k1\r\n`, '$-1\r\n');
    const own = await Raw.open(env.proxy);
    // Its own SET invalidates what it read: Redis writes the push after SET's +OK.
    await own.send('HELLO 3\r\nCLIENT TRACKING ON\r\nGET k1\r\nSET k1 x\r\nGET k1\r\n', '$1\r\nx\r\n');
    const bcast = await Raw.open(env.proxy);
    await bcast.send('HELLO 3\r\nCLIENT TRACKING ON BCAST PREFIX k\r\n', '+OK\r\n');
    await env.admin.set('k1', 'y');
    await vi.waitUntil(() => bcast.text.includes('invalidate') && (own.text.match(/invalidate/g) ?? []).length === 2, WAIT);
    // The redirected read of k1 was invalidated once, by own's SET (a read is tracked until then).
    await vi.waitUntil(() => target.text.includes('message'), WAIT);
    for (const c of [target, redirect, own, bcast]) c.close();
    await vi.waitUntil(() => env.proxy.stats().connections.active === 0, WAIT);
    // target: CLIENT ID, SUBSCRIBE; redirect: 2; own: 5; bcast: 2. Pushes: 1 message, 2 + 1 invalidations.
    expect((target.text.match(/message/g) ?? []).length).toBe(1);
    expect(totals(env.proxy)).toEqual({ commands: 11, replies: 11, pushes: 4, roundTrips: 5, errorReplies: 0 });
    expect(proxyCounted(env.proxy)).toEqual(await redisRan(env.admin).then(({ SET, ...rest }) => ({ ...rest, SET: SET! - 1 })));
  });

  it('one session of modes: CLIENT REPLY OFF/SKIP, SELECT, MULTI with errors, RESET, a blocked BLPOP woken by another client, WAIT, QUIT', async () => {
    const raw = await Raw.open(env.proxy);
    // Each step waits for its last reply: a round trip each, except those whose replies are off.
    await raw.send('SELECT 1\r\nCLIENT REPLY OFF\r\nSET a 1\r\nINCR a\r\nCLIENT REPLY ON\r\n', '+OK\r\n+OK\r\n');
    await raw.send('CLIENT REPLY SKIP\r\nINCR a\r\nGET a\r\n', '$1\r\n3\r\n');
    await raw.send('MULTI\r\nINCR a\r\nNOSUCH x\r\nEXEC\r\nMULTI\r\nLPUSH a x\r\nINCR a\r\nEXEC\r\n', '*2\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n:4\r\n');
    raw.socket.write('BLPOP list 5\r\n');
    await vi.waitUntil(async () => String(await env.admin.call('CLIENT', 'LIST')).includes('cmd=blpop'), WAIT);
    await env.admin.select(1);
    await env.admin.rpush('list', 'woken');
    await env.admin.select(0);
    await vi.waitUntil(() => raw.text.endsWith('$5\r\nwoken\r\n'), WAIT);
    await raw.send('WAIT 0 0\r\nRESET\r\nGET a\r\nQUIT\r\n', '$-1\r\n+OK\r\n');
    raw.close();
    await vi.waitUntil(() => env.proxy.stats().connections.active === 0, WAIT);
    expect(totals(env.proxy)).toEqual({ commands: 21, replies: 16, pushes: 0, roundTrips: 5, errorReplies: 2 });
    expect(env.proxy.stats().totals.blockingCommands).toBe(2); // BLPOP, WAIT
    const ran = await redisRan(env.admin);
    // The admin's own SELECTs and RPUSH went to Redis directly; MULTI's queued commands are counted
    // by Redis at EXEC (the aborted one's INCR never ran), by the proxy as it saw them.
    expect(proxyCounted(env.proxy)).toEqual({ ...ran, SELECT: ran['SELECT']! - 2, RPUSH: undefined, 'CLIENT LIST': undefined, INCR: ran['INCR']! + 1, '?': 1 });
  });

  it('node-redis over RESP3 with client-side caching: invalidations are pushes, every command is Redis\'s', async () => {
    const client = createClient({ socket: { host: env.proxy.host!, port: env.proxy.port! }, RESP: 3, clientSideCache: { ttl: 0, maxEntries: 0 } });
    client.on('error', () => undefined);
    await client.connect();
    env.proxy.resetStats();
    await env.admin.config('RESETSTAT');
    await client.set('csc', '1');
    expect(await client.get('csc')).toBe('1');
    expect(await client.get('csc')).toBe('1'); // from its cache: not sent
    await env.admin.set('csc', '2');
    // Until the invalidation reached it, each GET is answered from its cache, never sent.
    await vi.waitUntil(async () => (await client.get('csc')) === '2', WAIT);
    await client.close();
    expect(totals(env.proxy)).toEqual({ commands: 3, replies: 3, pushes: 1, roundTrips: 3, errorReplies: 0 });
    expect(proxyCounted(env.proxy)).toEqual({ SET: 1, GET: 2 });
    expect(await redisRan(env.admin)).toEqual({ SET: 2, GET: 2 });
  });
});
