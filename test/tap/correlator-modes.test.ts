import { describe, expect, it } from 'vitest';
import { RespType } from '../../src/resp/types.js';
import { arr, bulk, err, map, ok, push, queued, simple, Wire } from './frames.js';

const pong = simple('PONG');

describe('correlator: RESP2 pub/sub', () => {
  it('answers SUBSCRIBE with its k confirmations, counts messages as pushes, and leaves on count 0', () => {
    const w = new Wire();
    w.send(['SUBSCRIBE', 'a', 'b'], 0);
    w.sent(1000);
    w.reply(arr('subscribe', 3, 1), 2000);
    w.delivered(2500);
    expect(w.c.outstanding).toBe(1); // still waiting for b's confirmation
    w.reply(arr('subscribe', 3, 2), 3000);
    w.delivered(4000);
    expect(w.c.outstanding).toBe(0);
    expect(w.c.replyModes.mode).toBe('subscribed');
    w.reply(arr('message', 3), 5000);
    w.reply(arr('message', 3), 5000);
    w.delivered(6000);
    w.roundTrip(['PING'], arr('pong', 2), 10_000); // RESP2 PING in subscribed mode: *2 pong ""
    w.roundTrip(['GET', 'x'], err('ERR'), 20_000); // not allowed in subscribed mode
    w.send(['UNSUBSCRIBE'], 30_000); // no arguments: one confirmation per channel
    w.sent(31_000);
    w.reply(arr('unsubscribe', 3, 1), 32_000);
    w.reply(arr('unsubscribe', 3, 0), 32_000);
    w.delivered(33_000);
    expect(w.c.replyModes.mode).toBe('normal');
    w.roundTrip(['LRANGE', 'l', '0', '-1'], arr('message', 3), 40_000); // a plain reply again
    const c = w.c.counters;
    expect(c).toMatchObject({ commands: 5, replies: 7, pushes: 2, roundTrips: 5, errorReplies: 1 });
    expect(c.depthHistogram).toEqual({ '1': 5 });
    expect(w.pushEvents().map((e) => e.kind)).toEqual(['message', 'message']);
    const sub = w.commands.entry('SUBSCRIBE', false).stats();
    expect(sub.serverUs.max).toBe(1); // sent -> first confirmation
    expect(sub.clientUs.max).toBe(4); // arrival -> last confirmation delivered
    expect(w.commandEvents()[0]).toMatchObject({ name: 'SUBSCRIBE', bytesDown: 60, reply: '*' });
  });

  it('sizes an argument-less UNSUBSCRIBE by the channels it has, PUNSUBSCRIBE by the patterns', () => {
    const w = new Wire();
    w.send(['SUBSCRIBE', 'a', 'b'], 0);
    w.send(['PSUBSCRIBE', 'p*'], 0);
    w.send(['UNSUBSCRIBE'], 0);
    w.send(['PUNSUBSCRIBE'], 0);
    w.send(['UNSUBSCRIBE'], 0); // nothing left: one confirmation with a null channel
    w.send(['PING'], 0);
    w.sent(1);
    for (const spec of [
      arr('subscribe', 3, 1),
      arr('subscribe', 3, 2),
      arr('psubscribe', 3, 3),
      arr('unsubscribe', 3, 2),
      arr('unsubscribe', 3, 1),
      arr('punsubscribe', 3, 0),
      arr('unsubscribe', 3, 0),
      pong,
    ]) {
      w.reply(spec, 2);
    }
    w.delivered(3);
    expect(w.c.counters).toMatchObject({ commands: 6, replies: 8, pushes: 0, roundTrips: 1, maxDepth: 6 });
    expect(w.commandEvents().map((e) => e.name)).toEqual(['SUBSCRIBE', 'PSUBSCRIBE', 'UNSUBSCRIBE', 'PUNSUBSCRIBE', 'UNSUBSCRIBE', 'PING']);
    expect(w.commandEvents().map((e) => e.bytesDown)).toEqual([60, 30, 60, 30, 30, 7]);
    expect(w.c.outstanding).toBe(0);
  });

  it('never leaves a SUBSCRIBE outstanding when fewer confirmations come than expected', () => {
    const w = new Wire();
    w.send(['SUBSCRIBE', 'a', 'b'], 0);
    w.send(['PING'], 0);
    w.sent(1);
    w.reply(arr('subscribe', 3, 1), 2);
    w.reply(arr('pong', 2), 2); // b's confirmation never came: SUBSCRIBE closes, PING is answered
    w.delivered(3);
    expect(w.c.outstanding).toBe(0);
    expect(w.commandEvents().map((e) => e.name)).toEqual(['SUBSCRIBE', 'PING']);
  });

  it('an error answers a SUBSCRIBE outright', () => {
    const w = new Wire();
    w.roundTrip(['SUBSCRIBE'], err('ERR'), 0);
    w.roundTrip(['SSUBSCRIBE', 'a', 'b'], err('CROSSSLOT'), 10_000);
    expect(w.c.outstanding).toBe(0);
    expect(w.c.counters.errorsByPrefix).toEqual({ ERR: 1, CROSSSLOT: 1 });
  });

  it('stray confirmations nobody waits for are pushes', () => {
    const w = new Wire();
    w.roundTrip(['SUBSCRIBE', 'a'], arr('subscribe', 3, 1), 0);
    w.reply(arr('unsubscribe', 3, 0), 10_000);
    expect(w.c.counters).toMatchObject({ replies: 1, pushes: 1 });
    expect(w.c.replyModes.mode).toBe('normal'); // the count it carried still counts
  });
});

describe('correlator: RESP3', () => {
  it('HELLO 3 switches the protocol; confirmations are > pushes that still answer SUBSCRIBE', () => {
    const w = new Wire();
    w.roundTrip(['HELLO', '3'], map, 0);
    expect(w.c.replyModes.protocol).toBe(3);
    w.send(['SUBSCRIBE', 'a', 'b'], 10_000);
    w.sent(11_000);
    w.reply(push('subscribe', 3, 1), 12_000);
    w.reply(push('subscribe', 3, 2), 12_000);
    w.reply(push('message', 3), 12_500);
    w.delivered(13_000);
    expect(w.c.outstanding).toBe(0);
    // RESP3 allows any command while subscribed; a *3 "message" array is a plain reply.
    w.send(['GET', 'x'], 20_000);
    w.send(['LRANGE', 'l', '0', '-1'], 20_000);
    w.sent(21_000);
    w.reply(push('message', 3), 21_500);
    w.reply({ type: RespType.Null, bytes: 3 }, 22_000);
    w.reply(arr('message', 3), 22_000);
    w.delivered(23_000);
    w.roundTrip(['UNSUBSCRIBE'], push('unsubscribe', 3, 1), 30_000); // 2 channels: waits for the 2nd
    expect(w.c.outstanding).toBe(1);
    w.reply(push('unsubscribe', 3, 0), 34_000);
    w.delivered(35_000);
    expect(w.c.outstanding).toBe(0);
    expect(w.c.replyModes.mode).toBe('normal');
    expect(w.c.counters).toMatchObject({ commands: 5, replies: 7, pushes: 2, roundTrips: 4 });
  });

  it('a failed HELLO 3 keeps RESP2, HELLO 2 goes back, HELLO without a version changes nothing', () => {
    const w = new Wire();
    w.roundTrip(['HELLO', '3', 'AUTH', 'u', 'p'], err('WRONGPASS'), 0);
    expect(w.c.replyModes.protocol).toBe(2);
    w.roundTrip(['HELLO', '3'], map, 10_000);
    w.roundTrip(['HELLO'], map, 20_000);
    expect(w.c.replyModes.protocol).toBe(3);
    w.roundTrip(['HELLO', '2'], arr('server', 14), 30_000);
    expect(w.c.replyModes.protocol).toBe(2);
  });
});

describe('correlator: MONITOR, RESET, QUIT', () => {
  const line = simple('1795978256.184874 [0 unix:/tmp/r.sock] "PING"');

  it('after MONITOR +OK every monitor line is a push; the client\'s own commands still get replies', () => {
    const w = new Wire();
    w.roundTrip(['MONITOR'], ok, 0);
    expect(w.c.replyModes.mode).toBe('monitor');
    w.reply(line, 5000);
    w.reply(simple('1795978256.1 [0 lua] "x"'), 5000);
    w.send(['PING'], 10_000);
    w.sent(11_000);
    w.reply(pong, 12_000);
    w.reply(line, 12_000);
    w.delivered(13_000);
    w.roundTrip(['RESET'], simple('RESET'), 20_000);
    expect(w.c.replyModes.mode).toBe('normal');
    w.reply(line, 30_000); // no longer monitoring: nothing waits for it
    const c = w.c.counters;
    expect(c).toMatchObject({ commands: 3, replies: 3, pushes: 4, roundTrips: 3 });
    expect(w.pushEvents().map((e) => e.kind)).toEqual(['monitor', 'monitor', 'monitor', 'unmatched']);
  });

  it.each([2, 3] as const)('a monitor that subscribed (Redis allows it) still tells messages and confirmations apart, RESP%s', (p) => {
    const frame = p === 3 ? push : arr;
    const w = new Wire();
    if (p === 3) w.roundTrip(['HELLO', '3'], map, 0);
    w.roundTrip(['MONITOR'], ok, 10_000);
    w.roundTrip(['SUBSCRIBE', 'a', 'b'], frame('subscribe', 3, 1), 20_000);
    w.reply(frame('subscribe', 3, 2), 23_000);
    w.delivered(24_000);
    w.send(['PING'], 30_000);
    w.reply(frame('message', 3), 31_000); // published while the PING is still on its way to Redis
    w.delivered(32_000);
    expect(w.c.outstanding).toBe(1);
    w.sent(40_000);
    w.reply(p === 3 ? pong : arr('pong', 2), 41_000);
    w.reply(line, 41_000);
    w.delivered(42_000);
    w.send(['UNSUBSCRIBE'], 50_000); // no arguments: one confirmation per channel
    w.sent(51_000);
    w.reply(frame('unsubscribe', 3, 1), 52_000);
    w.reply(frame('unsubscribe', 3, 0), 52_000);
    w.delivered(53_000);
    expect(w.c.outstanding).toBe(0);
    const c = w.c.counters;
    expect(c).toMatchObject({ commands: p + 2, replies: p + 4, pushes: 2, roundTrips: p + 2 }); // HELLO in RESP3
    expect(w.pushEvents().map((e) => e.kind)).toEqual(['message', 'monitor']);
    expect(w.commands.entry('PING', false).stats().clientUs.max).toBe(12); // arrival -> PONG delivered
    expect(w.c.replyModes.mode).toBe('monitor');
  });

  it('a CLIENT REPLY with a wrong argument count is an error reply, and changes nothing', () => {
    const w = new Wire();
    w.roundTrip(['CLIENT', 'REPLY', 'SKIP', 'x'], err('ERR'), 0);
    w.roundTrip(['CLIENT', 'REPLY'], err('ERR'), 10_000);
    w.roundTrip(['GET', 'k'], bulk, 20_000);
    expect(w.c.outstanding).toBe(0);
    expect(w.c.counters).toMatchObject({ commands: 3, replies: 3, pushes: 0, errorReplies: 2, roundTrips: 3 });
    expect(w.commands.entry('GET', false).stats().clientUs.count).toBe(1);
  });

  it('a MONITOR on a monitoring connection gets no reply (Redis ignores it); a refused one does not count', () => {
    const w = new Wire();
    w.send(['MONITOR'], 0);
    w.send(['MONITOR'], 0); // pipelined behind the first: ignored by Redis too
    w.sent(1000);
    w.reply(ok, 2000);
    w.delivered(3000);
    expect(w.c.outstanding).toBe(0);
    w.send(['MONITOR'], 10_000); // no reply of its own: the PONG is the PING's
    w.roundTrip(['PING'], pong, 10_000);
    expect(w.commands.entry('PING', false).stats().clientUs.count).toBe(1);
    w.roundTrip(['RESET'], simple('RESET'), 30_000);
    w.roundTrip(['MONITOR', 'x'], err('ERR'), 40_000); // arity error: answered, not monitoring
    w.roundTrip(['MONITOR'], err('NOPERM'), 50_000);
    w.roundTrip(['MONITOR'], err('NOPERM'), 60_000); // refused again: answered again
    w.roundTrip(['MONITOR'], ok, 70_000);
    expect(w.c.outstanding).toBe(0);
    expect(w.c.replyModes.mode).toBe('monitor');
    expect(w.c.counters).toMatchObject({ commands: 9, replies: 7, pushes: 0, errorReplies: 3, roundTrips: 7 });
  });

  it('a refused MULTI opens no transaction: what comes after its error runs at once', () => {
    const w = new Wire();
    w.roundTrip(['SUBSCRIBE', 'a'], arr('subscribe', 3, 1), 0);
    w.roundTrip(['MULTI'], err('ERR'), 10_000); // not allowed in RESP2 pub/sub
    w.send(['SUBSCRIBE', 'b', 'c'], 20_000); // two confirmations, not one +QUEUED
    w.sent(21_000);
    w.reply(arr('subscribe', 3, 2), 22_000);
    w.reply(arr('subscribe', 3, 3), 22_000);
    w.delivered(23_000);
    expect(w.c.outstanding).toBe(0);
    w.roundTrip(['PING'], arr('pong', 2), 30_000);
    expect(w.c.outstanding).toBe(0);
    expect(w.c.counters).toMatchObject({ commands: 4, replies: 5, pushes: 0, errorReplies: 1, roundTrips: 4 });
    w.roundTrip(['RESET'], simple('RESET'), 40_000);
    w.roundTrip(['MULTI'], ok, 50_000);
    w.roundTrip(['MULTI'], err('ERR'), 60_000); // nested: an error that leaves the transaction open
    w.roundTrip(['SUBSCRIBE', 'd', 'e'], queued, 70_000);
    w.send(['EXEC'], 80_000);
    w.sent(81_000);
    w.reply({ type: RespType.Array, elements: 1, bytes: 40 }, 82_000);
    w.reply(arr('subscribe', 3, 2), 82_000); // e's confirmation, after EXEC's array
    w.delivered(83_000);
    expect(w.c.outstanding).toBe(0);
    expect(w.c.replyModes.mode).toBe('subscribed');
  });

  it.each(['OFF', 'SKIP'])('a refused CLIENT REPLY %s (its error answers nothing) leaves replies on', (mode) => {
    const w = new Wire();
    w.roundTrip(['SUBSCRIBE', 'a'], arr('subscribe', 3, 1), 0);
    w.send(['CLIENT', 'REPLY', mode], 10_000); // not allowed in RESP2 pub/sub
    w.sent(11_000);
    w.reply(err('ERR'), 12_000);
    w.delivered(13_000);
    w.roundTrip(['PING'], arr('pong', 2), 20_000);
    w.roundTrip(['PING'], arr('pong', 2), 30_000);
    expect(w.c.outstanding).toBe(0);
    expect(w.c.counters).toMatchObject({ commands: 4, replies: 3, pushes: 1, roundTrips: 3 });
    expect(w.commands.entry('PING', false).stats().clientUs.count).toBe(2);
  });

  it('RESET leaves pub/sub, goes back to RESP2 and turns CLIENT REPLY back on', () => {
    const w = new Wire();
    w.roundTrip(['HELLO', '3'], map, 0);
    w.roundTrip(['SUBSCRIBE', 'a'], push('subscribe', 3, 1), 10_000);
    w.send(['CLIENT', 'REPLY', 'OFF'], 20_000);
    w.send(['RESET'], 20_000);
    w.sent(21_000);
    w.reply(simple('RESET'), 22_000);
    w.delivered(23_000);
    expect(w.c.replyModes).toMatchObject({ protocol: 2, mode: 'normal' });
    expect(w.c.requestModes.replyOff).toBe(false);
    w.roundTrip(['PING'], pong, 30_000);
    expect(w.c.outstanding).toBe(0);
    expect(w.c.counters.roundTrips).toBe(4);
  });

  it('QUIT is answered by +OK; what follows it ends with the connection', () => {
    const w = new Wire();
    w.send(['QUIT'], 0);
    w.send(['PING'], 0);
    w.sent(1000);
    w.reply(ok, 2000);
    w.delivered(3000);
    w.c.close();
    expect(w.commandEvents().map((e) => [e.name, e.reply])).toEqual([['QUIT', '+'], ['PING', 'none']]);
    expect(w.c.counters.depthHistogram).toEqual({ '2-3': 1 });
  });
});

describe('correlator: CLIENT REPLY', () => {
  it('OFF silences everything up to ON (which gets +OK); SKIP silences itself and the next command', () => {
    const w = new Wire();
    w.send(['CLIENT', 'REPLY', 'OFF'], 0);
    w.send(['SET', 'a', '1'], 0);
    w.send(['CLIENT', 'REPLY', 'SKIP'], 0); // ignored while OFF
    w.send(['SET', 'b', '1'], 0);
    w.sent(1000);
    expect(w.c.outstanding).toBe(0);
    expect(w.c.counters.roundTrips).toBe(0);
    expect(w.commandEvents().map((e) => e.reply)).toEqual(['none', 'none', 'none', 'none']);
    w.send(['CLIENT', 'REPLY', 'ON'], 2000);
    w.send(['CLIENT', 'REPLY', 'SKIP'], 2000);
    w.send(['GET', 'a'], 2000); // skipped
    w.send(['GET', 'b'], 2000); // answered
    w.sent(3000);
    w.reply(ok, 4000);
    w.reply(bulk, 4000);
    w.delivered(5000);
    const c = w.c.counters;
    expect(c).toMatchObject({ commands: 8, replies: 2, roundTrips: 1, maxDepth: 2 });
    // The round trip's requests include the silent ones sent while it was open.
    expect(c.depthHistogram).toEqual({ '4-7': 1 });
    expect(w.commandEvents().map((e) => `${e.name}:${e.reply}:${e.roundTrip}`)).toEqual([
      'CLIENT REPLY:none:0',
      'SET:none:0',
      'CLIENT REPLY:none:0',
      'SET:none:0',
      'CLIENT REPLY:+:1',
      'CLIENT REPLY:none:1',
      'GET:none:1',
      'GET:$:1',
    ]);
    expect(w.c.pending).toBe(0);
  });

  it('SKIP then ON: ON clears the skip and is answered', () => {
    const w = new Wire();
    w.send(['CLIENT', 'REPLY', 'SKIP'], 0);
    w.send(['CLIENT', 'REPLY', 'ON'], 0);
    w.sent(1);
    w.reply(ok, 2);
    w.delivered(3);
    expect(w.c.outstanding).toBe(0);
    expect(w.commandEvents().map((e) => e.reply)).toEqual(['none', '+']);
  });

  it('SKIP then RESET: RESET clears OFF, not its own skip, so +RESET does not come (Redis 7)', () => {
    const w = new Wire();
    w.send(['CLIENT', 'REPLY', 'SKIP'], 0);
    w.send(['RESET'], 0);
    w.sent(1);
    w.roundTrip(['ECHO', 'x'], bulk, 10);
    w.roundTrip(['ECHO', 'y'], bulk, 20);
    expect(w.c.outstanding).toBe(0);
    expect(w.commandEvents().map((e) => `${e.name}:${e.reply}`)).toEqual(['CLIENT REPLY:none', 'RESET:none', 'ECHO:$', 'ECHO:$']);
    expect(w.c.counters).toMatchObject({ replies: 2, roundTrips: 2, maxDepth: 1 });
  });

  it('pub/sub confirmations come under OFF and SKIP, and are SUBSCRIBE\'s; a later PING is answered by its own reply', () => {
    const w = new Wire();
    w.send(['CLIENT', 'REPLY', 'SKIP'], 0);
    w.send(['SUBSCRIBE', 'a', 'b'], 0);
    w.sent(1);
    w.reply(arr('subscribe', 3, 1), 2);
    w.reply(arr('subscribe', 3, 2), 2);
    w.delivered(3);
    expect(w.c.replyModes.mode).toBe('subscribed');
    w.send(['PING'], 10_000);
    w.sent(11_000);
    w.reply(arr('message', 3), 12_000); // a message while the PING waits: a push, not its reply
    w.reply(arr('pong', 2), 20_000);
    w.delivered(21_000);
    const ping = w.commands.entry('PING', false).stats();
    expect(ping.serverUs.max).toBe(9); // sent at 11 us, its pong at 20 us
    expect(w.pushEvents().map((e) => e.kind)).toEqual(['message']);
    expect(w.c.outstanding).toBe(0);
  });

  it('what a silent command changes takes effect in reply order: HELLO 3 under OFF, MONITOR under SKIP', () => {
    const w = new Wire();
    w.send(['CLIENT', 'REPLY', 'OFF'], 0);
    w.send(['HELLO', '3'], 0);
    w.roundTrip(['CLIENT', 'REPLY', 'ON'], ok, 10);
    expect(w.c.replyModes.protocol).toBe(3);
    w.roundTrip(['SUBSCRIBE', 'ch'], push('subscribe', 3, 1), 20);
    // In RESP3 an array is a reply, never a message: LRANGE's is its own.
    w.reply(push('message', 3), 30);
    w.roundTrip(['PING'], pong, 40);
    expect(w.c.counters).toMatchObject({ pushes: 1, roundTrips: 3 });
    expect(w.c.outstanding).toBe(0);

    const m = new Wire();
    m.send(['CLIENT', 'REPLY', 'SKIP'], 0);
    m.send(['MONITOR'], 0);
    m.sent(1);
    m.reply(simple('1700000000.123456 [0 127.0.0.1:1] "GET" "k"'), 2);
    expect(m.c.replyModes.mode).toBe('monitor');
    expect(m.pushEvents().map((e) => e.kind)).toEqual(['monitor']);
  });
});

describe('correlator: MULTI/EXEC', () => {
  it('counts MULTI, each +QUEUED or queue-time error, and EXEC as commands and replies', () => {
    const w = new Wire();
    w.send(['MULTI'], 0);
    w.send(['SUBSCRIBE', 'a'], 0); // queued like anything else
    w.send(['BLPOP', 'l', '1'], 0); // does not block inside a transaction
    w.send(['INCR'], 0);
    w.send(['EXEC'], 0);
    w.sent(1);
    for (const spec of [ok, queued, queued, err('ERR'), err('EXECABORT')]) w.reply(spec, 2);
    w.delivered(3);
    const c = w.c.counters;
    expect(c).toMatchObject({ commands: 5, replies: 5, errorReplies: 2, roundTrips: 1, maxDepth: 5, blockingCommands: 0 });
    expect(c.errorsByPrefix).toEqual({ ERR: 1, EXECABORT: 1 });
    expect(w.commands.entry('BLPOP', false).blocking).toBe(false);
    w.roundTrip(['MULTI'], ok, 10_000);
    w.roundTrip(['SET', 'a', '1'], queued, 20_000);
    w.roundTrip(['EXEC'], arr('OK', 1), 30_000);
    w.roundTrip(['BLPOP', 'l', '1'], arr('l', 2), 40_000); // outside MULTI it blocks again
    expect(w.c.counters.blockingCommands).toBe(1);
  });
});

describe('correlator: mode changes queued in MULTI, at EXEC', () => {
  it('SUBSCRIBE a b: the confirmation after EXEC\'s array answers the EXEC, which stays outstanding until it', () => {
    const w = new Wire();
    w.send(['MULTI'], 0);
    w.send(['SUBSCRIBE', 'a', 'b'], 0);
    w.send(['EXEC'], 0);
    w.sent(1000);
    for (const spec of [ok, queued]) w.reply(spec, 2000);
    w.reply({ ...arr('', 1), head: undefined, bytes: 40 }, 3000); // *1, holding a's confirmation
    w.delivered(4000);
    expect(w.c.outstanding).toBe(1);
    expect(w.c.replyModes.mode).toBe('subscribed');
    w.reply(arr('subscribe', 3, 2), 5000); // b's, after the array
    w.delivered(6000);
    expect(w.c.outstanding).toBe(0);
    w.reply(arr('message', 3), 7000);
    w.roundTrip(['UNSUBSCRIBE'], arr('unsubscribe', 3, 1), 10_000);
    w.reply(arr('unsubscribe', 3, 0), 10_002);
    w.delivered(10_003);
    expect(w.c.replyModes.mode).toBe('normal');
    expect(w.c.counters).toMatchObject({ commands: 4, replies: 6, pushes: 1, roundTrips: 2 });
    expect(w.commands.entry('EXEC', false).stats().clientUs.max).toBe(6); // arrival -> last frame delivered
  });

  it('HELLO 3 sets the protocol when EXEC\'s array comes, not when it is queued; an EXECABORT changes nothing', () => {
    const w = new Wire();
    w.roundTrip(['MULTI'], ok, 0);
    w.roundTrip(['HELLO', '3'], queued, 10);
    expect(w.c.replyModes.protocol).toBe(2);
    w.roundTrip(['EXEC'], { ...arr('', 1), head: undefined }, 20);
    expect(w.c.replyModes.protocol).toBe(3);
    w.roundTrip(['MULTI'], ok, 30);
    w.roundTrip(['HELLO', '2'], queued, 40);
    w.roundTrip(['NOPE'], err('ERR'), 50);
    w.roundTrip(['EXEC'], err('EXECABORT'), 60);
    expect(w.c.replyModes.protocol).toBe(3);
    expect(w.c.desynced).toBe(false);
  });

  it('CLIENT REPLY queued in MULTI cannot be followed: EXEC stops the matching, commands are still counted', () => {
    const w = new Wire();
    w.roundTrip(['MULTI'], ok, 0);
    w.roundTrip(['CLIENT', 'REPLY', 'SKIP'], queued, 10);
    w.send(['EXEC'], 20);
    expect(w.c.desynced).toBe(true);
    w.send(['PING'], 30);
    expect(w.c.counters.commands).toBe(4);
  });
});

describe('correlator: blocking commands', () => {
  it('keeps blocking latency apart and spots XREAD/XREADGROUP BLOCK', () => {
    const w = new Wire();
    w.send(['BLPOP', 'q', '0'], 0);
    w.sent(1000);
    w.reply(arr('q', 2), 5_000_000_000); // waited 5 s for data
    w.delivered(5_000_001_000);
    w.roundTrip(['XREAD', 'COUNT', '1', 'BLOCK', '100', 'STREAMS', 's', '$'], arr('s', 1), 6e9);
    w.roundTrip(['XREAD', 'STREAMS', 'block', '0'], arr('s', 1), 7e9);
    w.roundTrip(['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', 's', '>'], arr('s', 1), 8e9);
    w.roundTrip(['WAIT', '1', '0'], { type: RespType.Integer, bytes: 4 }, 9e9);
    w.roundTrip(['LPOP', 'q'], bulk, 10e9);
    expect(w.c.counters.blockingCommands).toBe(4);
    const snap = w.commands.snapshot();
    expect(snap['BLPOP']).toMatchObject({ count: 1, blocking: true });
    expect(snap['BLPOP']?.serverUs.max).toBeGreaterThanOrEqual(4_990_000);
    expect(snap['XREAD BLOCK']).toMatchObject({ count: 1, blocking: true });
    expect(snap['XREAD']).toMatchObject({ count: 1 });
    expect(snap['XREAD']).not.toHaveProperty('blocking');
    expect(snap['XREADGROUP BLOCK']).toMatchObject({ count: 1, blocking: true });
    expect(snap['WAIT']).toMatchObject({ blocking: true });
    expect(snap['LPOP']).not.toHaveProperty('blocking');
    expect(w.commandEvents()[0]).toMatchObject({ name: 'BLPOP', blocking: true });
  });

  it('a BLPOP taken as queued that runs at once (a stage answered its MULTI) moves to the blocking BLPOP entry', () => {
    const w = new Wire();
    w.c.chainDecides = true;
    w.send(['MULTI'], 0);
    w.send(['BLPOP', 'q', '0'], 0);
    expect(w.commands.snapshot()['BLPOP QUEUED']).toMatchObject({ count: 1 });
    w.c.fedDecided(0, 1, true);
    const snap = w.commands.snapshot();
    expect(snap['BLPOP']).toMatchObject({ count: 1, blocking: true });
    expect(snap['BLPOP QUEUED']).toBeUndefined();
    expect(w.c.counters.blockingCommands).toBe(1);
  });
});

describe('correlator: desync', () => {
  it('freezes matching: pending requests keep what they had and end with the connection', () => {
    const w = new Wire();
    w.roundTrip(['PING'], pong, 0);
    w.send(['GET', 'a'], 10_000);
    w.sent(11_000);
    w.c.desync();
    w.reply(bulk, 12_000);
    w.delivered(13_000);
    w.send(['GET', 'b'], 14_000);
    const c = w.c.counters;
    expect(c).toMatchObject({ commands: 3, replies: 1, roundTrips: 2 });
    expect(w.c.outstanding).toBe(1);
    w.c.close();
    expect(w.commandEvents().map((e) => [e.name, e.reply])).toEqual([['PING', '+'], ['GET', 'none']]);
    expect(w.commands.entry('GET', false).count).toBe(2);
  });
});
