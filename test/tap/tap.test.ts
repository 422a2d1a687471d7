import { describe, expect, it } from 'vitest';
import { encodeCommand } from './frames.js';
import { TapWire, type Split } from './tap-wire.js';

const cmd = (...args: string[]): Buffer => encodeCommand(args);
const SPLITS: Split[] = ['whole', 'bytes', 'random'];

describe.each(SPLITS)('tap on real bytes (%s chunks)', (split) => {
  it('sequential loop of N: N round trips; pipeline of B: 1 round trip at depth B', () => {
    const w = new TapWire(split);
    for (let i = 0; i < 20; i++) w.exchange(`*3|$3|SET|$2|k${i % 10}|$1|v|`, '+OK|', i * 10_000);
    const B = 32;
    w.up(Buffer.concat(Array.from({ length: B }, () => cmd('GET', 'k1'))), 1e6).sent(1e6 + 1);
    w.down('$1|v|'.repeat(B), 1e6 + 2).delivered(1e6 + 3);
    const c = w.tap.counters();
    expect(c).toMatchObject({ commands: 20 + B, replies: 20 + B, roundTrips: 21, flights: 21, maxDepth: B });
    expect(c.depthHistogram).toEqual({ '1': 20, '32-63': 1 });
    expect(c.bytesUp).toBe(w.upTotal);
    expect(c.bytesDown).toBe(w.downTotal);
    expect(w.tap.pendingRequests).toBe(0);
  });

  it('a close counts none of the bytes and replies it dropped before they reached the client', () => {
    const w = new TapWire(split);
    w.exchange('GET k|', '$1|v|', 0);
    w.up('GET a|GET b|GET c|', 10_000).sent(11_000);
    w.down('$1|v|', 12_000);
    const deliveredEnd = w.downTotal;
    w.down('-WRONGTYPE no|$1|v|', 12_000);
    w.tap.downWritten(deliveredEnd, 13_000); // the rest is in the down delay when the connection closes
    expect(w.tap.counters()).toMatchObject({ replies: 4, errorReplies: 1, bytesDown: w.downTotal });
    w.tap.close(14_000);
    expect(w.tap.counters()).toMatchObject({ replies: 2, errorReplies: 0, errorsByPrefix: {}, bytesDown: deliveredEnd });
    expect(w.commands.snapshot()['GET']).toMatchObject({ count: 4, errors: 0 });
  });

  it('spots BLOCK in XREADGROUP whatever the order of COUNT, NOACK and BLOCK', () => {
    const w = new TapWire(split);
    const nil = '*-1|';
    w.exchange('XREADGROUP GROUP g c COUNT 10 NOACK BLOCK 5 STREAMS s >|', nil, 0);
    w.exchange('XREADGROUP GROUP g c NOACK COUNT 10 BLOCK 5 STREAMS s >|', nil, 10_000);
    w.exchange('XREADGROUP GROUP g c COUNT 10 NOACK STREAMS block >|', nil, 20_000);
    expect(w.tap.counters().blockingCommands).toBe(2);
    const snap = w.commands.snapshot();
    expect(snap['XREADGROUP BLOCK']).toMatchObject({ count: 2, blocking: true });
    expect(snap['XREADGROUP']).toMatchObject({ count: 1 });
  });

  it('stamps a reply with the arrival of the chunk holding its FIRST byte', () => {
    const w = new TapWire(split);
    w.up(cmd('GET', 'big'), 5_000).sent(25_000);
    w.down('$10|01234', 125_000); // first half of the reply
    w.down('56789|', 400_000);
    w.delivered(900_000);
    const get = w.commands.snapshot()['GET'];
    expect(get?.serverUs).toMatchObject({ count: 1, max: 100 });
    expect(get?.clientUs).toMatchObject({ count: 1, max: 895 });
    expect(w.ofType('command')[0]).toMatchObject({ arrivedUs: 5, sentUs: 25, firstReplyUs: 125, deliveredUs: 900, bytesDown: 17 });
  });

  it('follows a RESP2 pub/sub session as redis-server 7.0 answers it', () => {
    const w = new TapWire(split);
    w.exchange('SUBSCRIBE a b|', '*3|$9|subscribe|$1|a|:1|*3|$9|subscribe|$1|b|:2|', 0);
    w.exchange('PSUBSCRIBE p*|', '*3|$10|psubscribe|$2|p*|:3|', 10_000);
    w.down('*3|$7|message|$1|a|$2|hi|*4|$8|pmessage|$2|p*|$2|pq|$2|yo|', 15_000).delivered(16_000);
    w.exchange('PING|', '*2|$4|pong|$0||', 20_000);
    w.exchange('GET x|', "-ERR Can't execute 'get': only (P/S)SUBSCRIBE / (P/S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context|", 30_000);
    w.exchange('UNSUBSCRIBE|', '*3|$11|unsubscribe|$1|b|:2|*3|$11|unsubscribe|$1|a|:1|', 40_000);
    w.exchange('PUNSUBSCRIBE|', '*3|$12|punsubscribe|$2|p*|:0|', 50_000);
    w.exchange('UNSUBSCRIBE|', '*3|$11|unsubscribe|$-1|:0|', 60_000);
    w.exchange('PING|', '+PONG|', 70_000);
    expect(w.tap.info()).toMatchObject({ mode: 'normal', outstanding: 0, protocol: 2, desynced: false });
    expect(w.tap.counters()).toMatchObject({ commands: 8, replies: 10, pushes: 2, roundTrips: 8, errorReplies: 1 });
    expect(w.ofType('push').map((e) => e.kind)).toEqual(['message', 'pmessage']);
  });

  it('follows a RESP3 session: HELLO 3, pushes, confirmations, invalidation', () => {
    const w = new TapWire(split);
    const hello =
      '%7|$6|server|$5|redis|$7|version|$6|7.0.15|$5|proto|:3|$2|id|:5|$4|mode|$10|standalone|$4|role|$6|master|$7|modules|*0|';
    w.exchange('HELLO 3|', hello, 0);
    expect(w.tap.info().protocol).toBe(3);
    w.exchange('SUBSCRIBE a b|', '>3|$9|subscribe|$1|a|:1|>3|$9|subscribe|$1|b|:2|', 10_000);
    w.up('GET x|', 20_000).sent(21_000).down('>3|$7|message|$1|a|$2|hi|_|', 22_000).delivered(23_000);
    w.down('>2|$10|invalidate|*1|$1|x|', 25_000).delivered(26_000);
    w.exchange('UNSUBSCRIBE|', '>3|$11|unsubscribe|$1|b|:1|>3|$11|unsubscribe|$1|a|:0|', 30_000);
    expect(w.tap.counters()).toMatchObject({ commands: 4, replies: 6, pushes: 2, roundTrips: 4 });
    expect(w.ofType('push').map((e) => e.kind)).toEqual(['message', 'invalidate']);
    expect(w.tap.info()).toMatchObject({ mode: 'normal', outstanding: 0 });
  });

  it('MONITOR, then RESET', () => {
    const w = new TapWire(split);
    w.exchange('MONITOR|', '+OK|', 0);
    w.exchange('PING|', '+PONG|+1795978256.184874 [0 unix:/tmp/r.sock] "PING"|', 10_000);
    w.down('+1795978256.284874 [0 127.0.0.1:5000] "set" "x" "1"|', 15_000).delivered(16_000);
    expect(w.tap.info().mode).toBe('monitor');
    w.exchange('RESET|', '+RESET|', 20_000);
    expect(w.tap.info().mode).toBe('normal');
    expect(w.tap.counters()).toMatchObject({ commands: 3, replies: 3, pushes: 2 });
  });

  it('CLIENT REPLY OFF/SKIP/ON as redis-server answers them', () => {
    const w = new TapWire(split);
    w.up('CLIENT REPLY SKIP|PING|PING|', 0).sent(1).down('+PONG|', 2).delivered(3);
    w.up('CLIENT REPLY OFF|PING|CLIENT REPLY SKIP|PING|CLIENT REPLY ON|PING|', 10).sent(11);
    w.down('+OK|+PONG|', 12).delivered(13);
    expect(w.tap.counters()).toMatchObject({ commands: 9, replies: 3, roundTrips: 2 });
    expect(w.tap.info().outstanding).toBe(0);
    expect(w.tap.pendingRequests).toBe(0);
  });

  it('MULTI with a queue-time error', () => {
    const w = new TapWire(split);
    w.up('MULTI|SET a 1|INCR|EXEC|', 0).sent(1);
    w.down("+OK|+QUEUED|-ERR wrong number of arguments for 'incr' command|-EXECABORT Transaction discarded because of previous errors.|", 2);
    w.delivered(3);
    const c = w.tap.counters();
    expect(c).toMatchObject({ commands: 4, replies: 4, errorReplies: 2, roundTrips: 1, maxDepth: 4 });
    expect(c.errorsByPrefix).toEqual({ ERR: 1, EXECABORT: 1 });
    expect(w.commands.snapshot()['INCR']?.errors).toBe(1);
  });

  it('QUIT: +OK, then the connection closes', () => {
    const w = new TapWire(split);
    w.exchange('QUIT|', '+OK|', 0);
    w.tap.close(10_000);
    expect(w.ofType('close')).toEqual([{ type: 'close', conn: 1, atUs: 10 }]);
    expect(w.tap.info()).toMatchObject({ closedAtMs: 1_700_000_000_000, outstanding: 0 });
  });

  it('on a desync stops correlating but keeps counting bytes and chunks', () => {
    const w = new TapWire(split);
    w.exchange('PING|', '+PONG|', 0);
    w.up('GET a|', 10_000).sent(11_000);
    w.down('?garbage|+more|', 12_000).delivered(13_000);
    const c = w.tap.counters();
    expect(w.tap.info().desynced).toBe(true);
    expect(c.unparsedBytes).toBe(17); // from the '?' on
    expect(c).toMatchObject({ commands: 2, replies: 1, bytesDown: 24 });
    w.up('GET b|', 14_000);
    expect(w.tap.counters().commands).toBe(3);
    w.tap.close(20_000);
    expect(w.ofType('command').map((e) => e.reply)).toEqual(['+', 'none']);
  });

  it('on a request desync the requests before it still get their replies; the protocol error freezes it', () => {
    const w = new TapWire(split);
    // Redis answers PING and GET, then refuses the bad count and closes.
    w.up('PING|GET a|*1|$-3|', 0).sent(1000);
    expect(w.tap.info()).toMatchObject({ desynced: true, outstanding: 2 });
    w.down('+PONG|$-1|', 2000).delivered(3000);
    expect(w.tap.info()).toMatchObject({ desynced: true, outstanding: 0 });
    w.down('-ERR Protocol error: invalid bulk length|', 4000).delivered(5000);
    expect(w.tap.counters()).toMatchObject({ commands: 2, replies: 2, pushes: 0, errorReplies: 0, roundTrips: 1, unparsedBytes: 9 });
    w.tap.close(6000);
    expect(w.ofType('command').map((e) => [e.name, e.reply])).toEqual([['PING', '+'], ['GET', '$']]);
  });

  it('times the replies before a refused request when the protocol error comes in the same write (as Redis sends it)', () => {
    const w = new TapWire(split);
    w.up('PING|GET a|*1|$-3|', 0).sent(1000);
    w.down('+PONG|$-1|-ERR Protocol error: invalid bulk length|', 2000).delivered(5000);
    expect(w.tap.info()).toMatchObject({ desynced: true, outstanding: 0 });
    expect(w.tap.counters()).toMatchObject({ commands: 2, replies: 2, roundTrips: 1, depthHistogram: { '2-3': 1 } });
    const snap = w.commands.snapshot();
    expect(snap['PING']?.clientUs).toMatchObject({ count: 1, max: 5 });
    expect(snap['GET']?.serverUs).toMatchObject({ count: 1, max: 1 });
    w.tap.close(6000);
    expect(w.ofType('command').map((e) => [e.name, e.reply, e.deliveredUs])).toEqual([['PING', '+', 5], ['GET', '$', 5]]);
  });
});

describe('tap events', () => {
  it('emits open, commands, pushes and close with the times it was given', () => {
    const w = new TapWire('whole', { openNs: 1_000 });
    w.exchange('GET k|', '$1|v|', 10_000);
    w.tap.close(50_000);
    expect(w.events.map((e) => e.type)).toEqual(['open', 'command', 'close']);
    expect(w.events[0]).toEqual({ type: 'open', conn: 1, atUs: 1, client: 'test' });
  });

  it('passes argument sizes through when asked, never argument values', () => {
    const w = new TapWire('whole', { argSizes: true, keyHash: (k) => `#${k.length}` });
    w.exchange('SET user:1 hello|', '+OK|', 0);
    w.exchange('AUTH default s3cret|', '+OK|', 10_000);
    const [set, auth] = w.ofType('command');
    expect(set).toMatchObject({ name: 'SET', argSizes: [3, 6, 5], keyHash: '#6' });
    expect(auth).not.toHaveProperty('argSizes');
    expect(JSON.stringify(w.events)).not.toMatch(/hello|s3cret|user:1/);
  });
});
