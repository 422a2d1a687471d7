import { describe, expect, it } from 'vitest';
import { RespType } from '../../src/resp/types.js';
import { bulk, err, ok, push, Wire } from './frames.js';

describe('correlator: round trips, flights, depth', () => {
  it('a sequential loop of N commands is N round trips and N flights at depth 1', () => {
    const w = new Wire();
    for (let i = 0; i < 50; i++) w.roundTrip(['SET', `k${i}`, 'v'], ok, i * 10_000);
    const c = w.c.counters;
    expect(c.commands).toBe(50);
    expect(c.replies).toBe(50);
    expect(c.roundTrips).toBe(50);
    expect(c.flights).toBe(50);
    expect(c.maxDepth).toBe(1);
    expect(c.depthHistogram).toEqual({ '1': 50 });
    expect(w.c.outstanding).toBe(0);
    expect(w.c.pending).toBe(0);
    expect(w.commandEvents().map((e) => e.roundTrip)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('a pipeline of B sent at once is one round trip, one flight, depth B', () => {
    const w = new Wire();
    const B = 100;
    for (let i = 0; i < B; i++) w.send(['GET', `k${i}`], 1000);
    w.sent(2000);
    // Replies come back in two chunks and are delivered in two writes: still one round trip.
    for (let i = 0; i < B / 2; i++) w.reply(bulk, 3000);
    w.delivered(4000);
    expect(w.c.outstanding).toBe(B / 2);
    for (let i = 0; i < B / 2; i++) w.reply(bulk, 5000);
    w.delivered(6000);
    const c = w.c.counters;
    expect(c.roundTrips).toBe(1);
    expect(c.flights).toBe(1);
    expect(c.maxDepth).toBe(B);
    expect(c.depthHistogram).toEqual({ '64-127': 1 });
    expect(w.commands.entry('GET', false).count).toBe(B);
    expect(w.commandEvents()).toHaveLength(B);
    expect(w.commandEvents().every((e) => e.roundTrip === 1)).toBe(true);
  });

  it('a second burst sent after some replies reached the client is a new flight, same round trip', () => {
    const w = new Wire();
    w.send(['GET', 'a'], 0);
    w.send(['GET', 'b'], 0);
    w.sent(10);
    w.reply(bulk, 20);
    w.delivered(30); // 'a' answered, 'b' still outstanding
    w.send(['GET', 'c'], 40);
    w.send(['GET', 'd'], 40);
    w.sent(50);
    w.reply(bulk, 60);
    w.reply(bulk, 60);
    w.reply(bulk, 60);
    w.delivered(70);
    const c = w.c.counters;
    expect(c.flights).toBe(2);
    expect(c.roundTrips).toBe(1);
    expect(c.maxDepth).toBe(3);
    expect(c.depthHistogram).toEqual({ '4-7': 1 });
  });

  it('stamps serverUs = first reply byte - sent and clientUs = delivered - arrival exactly', () => {
    const w = new Wire();
    w.send(['GET', 'k'], 10_000);
    w.sent(60_000);
    w.reply({ type: RespType.BulkString, bytes: 12 }, 160_000);
    w.delivered(300_000);
    const get = w.commands.entry('GET', false).stats();
    expect(get.serverUs).toMatchObject({ count: 1, p50: 100, max: 100 });
    expect(get.clientUs).toMatchObject({ count: 1, p50: 290, max: 290 });
    expect(w.commandEvents()[0]).toEqual({
      type: 'command',
      conn: 7,
      name: 'GET',
      argc: 2,
      bytesUp: 20,
      bytesDown: 12,
      arrivedUs: 10,
      sentUs: 60,
      firstReplyUs: 160,
      deliveredUs: 300,
      reply: '$',
      roundTrip: 1,
    });
  });

  it('rounds latencies to integer microseconds and never records a negative one', () => {
    const w = new Wire();
    w.send(['PING'], 0);
    w.reply({ type: RespType.SimpleString, simple: 'PONG', bytes: 7 }, 1_600); // before the write report
    w.sent(2_000);
    w.delivered(2_400);
    const ping = w.commands.entry('PING', false).stats();
    expect(ping.serverUs.max).toBe(0);
    expect(ping.clientUs.max).toBe(2);
    expect(w.commandEvents()[0]).toMatchObject({ sentUs: 1.6, firstReplyUs: 1.6 });
  });

  it('counts error replies by prefix and per command', () => {
    const w = new Wire();
    w.roundTrip(['INCR', 'k'], err('WRONGTYPE'), 0);
    w.roundTrip(['FOO'], err('ERR'), 10_000);
    w.roundTrip(['INCR', 'k'], err('WRONGTYPE'), 20_000);
    const c = w.c.counters;
    expect(c.errorReplies).toBe(3);
    expect(c.errorsByPrefix).toEqual({ WRONGTYPE: 2, ERR: 1 });
    expect(w.commands.entry('INCR', false).errors).toBe(2);
    expect(w.commandEvents()[0]).toMatchObject({ reply: '-', errorPrefix: 'WRONGTYPE' });
  });

  it('RESP3 pushes between replies are pushes, not replies or round trips', () => {
    const w = new Wire();
    w.send(['GET', 'a'], 0);
    w.sent(1);
    w.reply(push('invalidate', 2), 2);
    w.reply(bulk, 3);
    w.delivered(4);
    w.reply(push('invalidate', 2), 5);
    w.delivered(6);
    const c = w.c.counters;
    expect(c.replies).toBe(1);
    expect(c.pushes).toBe(2);
    expect(c.roundTrips).toBe(1);
    expect(w.pushEvents().map((e) => e.kind)).toEqual(['invalidate', 'invalidate']);
    expect(w.pushEvents()[0]).toMatchObject({ conn: 7, atUs: 0.002, bytes: 30 });
  });

  it('a reply nobody waits for is an unmatched push', () => {
    const w = new Wire();
    w.reply(err('ERR'), 0);
    expect(w.c.counters).toMatchObject({ replies: 0, pushes: 1, errorReplies: 0 });
    expect(w.pushEvents()[0]?.kind).toBe('unmatched');
  });

  it('close ends the open round trip and gives pending requests a "none" event', () => {
    const w = new Wire();
    w.send(['GET', 'a'], 0);
    w.send(['GET', 'b'], 0);
    w.sent(1000);
    w.reply(bulk, 2000); // framed, never delivered
    w.send(['GET', 'c'], 2500); // never written to Redis
    w.c.close();
    expect(w.c.counters.depthHistogram).toEqual({ '2-3': 1 });
    const events = w.commandEvents();
    expect(events.map((e) => e.reply)).toEqual(['$', 'none', 'none']);
    expect(events[0]).not.toHaveProperty('deliveredUs');
    expect(events[2]).toMatchObject({ unsent: true, sentUs: 2.5 });
    expect(w.c.pending).toBe(0);
    expect(w.commands.entry('GET', false).clientUs.count).toBe(0);
  });

  it('keeps memory bounded by what is outstanding over a long connection', () => {
    const w = new Wire({ events: false });
    for (let i = 0; i < 20_000; i++) w.roundTrip(['SET', 'k', 'v'], ok, i * 10_000);
    for (let i = 0; i < 1000; i++) w.send(['GET', 'k'], 1e9);
    expect(w.c.pending).toBe(1000);
    w.sent(1e9 + 1);
    for (let i = 0; i < 1000; i++) w.reply(bulk, 1e9 + 2);
    w.delivered(1e9 + 3);
    expect(w.c.pending).toBe(0);
    expect(w.c.counters.roundTrips).toBe(20_001);
  });

  it('hashes the first key for events only through the given function and never for AUTH/HELLO', () => {
    const w = new Wire({ keyHash: (k) => `h(${k.length})` });
    w.send(['GET', 'user:1'], 0, [3, 6]);
    w.send(['AUTH', 'user', 'secret'], 0, [4, 4, 6]);
    w.send(['HELLO', '3', 'AUTH', 'user', 'secret'], 0, [5, 1, 4, 4, 6]);
    w.send(['CONFIG', 'GET', 'maxmemory'], 0);
    w.sent(1);
    w.reply(bulk, 2);
    w.reply(ok, 2);
    w.reply({ type: RespType.Map, bytes: 100 }, 2);
    w.reply(bulk, 2);
    w.delivered(3);
    const [get, auth, hello, config] = w.commandEvents();
    expect(get).toMatchObject({ keyHash: 'h(6)', argSizes: [3, 6] });
    for (const e of [auth, hello]) {
      expect(e).not.toHaveProperty('keyHash');
      expect(e).not.toHaveProperty('argSizes');
    }
    expect(config).toMatchObject({ name: 'CONFIG GET' });
    expect(config).not.toHaveProperty('keyHash');
    expect(JSON.stringify(w.events)).not.toContain('secret');
  });

  it('resetCounters starts a new period and keeps an open round trip whole', () => {
    const w = new Wire();
    w.roundTrip(['PING'], ok, 0);
    w.send(['GET', 'a'], 10_000);
    w.send(['GET', 'b'], 10_000);
    w.c.resetCounters();
    // The two GETs in flight count in the new period, as their replies will: commands and replies add up.
    expect(w.c.counters).toMatchObject({ commands: 2, roundTrips: 1, maxDepth: 2 });
    w.sent(11_000);
    w.reply(bulk, 12_000);
    w.reply(bulk, 12_000);
    w.delivered(13_000);
    expect(w.c.counters).toMatchObject({ commands: 2, replies: 2, roundTrips: 1, depthHistogram: { '2-3': 1 } });
  });
});
