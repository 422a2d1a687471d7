/**
 * A framed connection's tap reads the frame chain's frames and matches: every byte is framed once
 * per direction, and the tap counts exactly what it counts on an unframed connection for the same
 * traffic (the same bytes, cut the same way, at the same times).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { FrameChain } from '../../src/stage/frame-chain.js';
import type { FrameStage } from '../../src/stage/types.js';
import { CommandTable } from '../../src/tap/command-table.js';
import type { TapEvent } from '../../src/tap/counter-types.js';
import { Tap } from '../../src/tap/tap.js';
import { TapAfterForward } from '../../src/tap/tap-after.js';
import { chunks, resp, type Split } from './tap-wire.js';
import { spyOnFramers } from './framer-spy.js';

/** One side of the comparison: the proxy's four calls into a tap, framed or not. */
interface Side {
  readonly tap: Tap;
  readonly commands: CommandTable;
  readonly events: TapEvent[];
  client(chunk: Buffer): void;
  /** Everything the client sent so far is written to Redis. */
  sent(): void;
  redis(chunk: Buffer): void;
  /** Everything toward the client so far is written to it. */
  delivered(): void;
}

function newTap(): { tap: Tap; commands: CommandTable; events: TapEvent[] } {
  const commands = new CommandTable();
  const events: TapEvent[] = [];
  const tap = new Tap({ id: 1, client: 'test', commands, onEvent: (e) => events.push(e), openNs: 0, wallClockMs: () => 0, argSizes: true });
  return { tap, commands, events };
}

/** The tap alone, framing both streams itself (an unframed connection). */
function unframed(clock: FakeClock): Side {
  const t = newTap();
  let upOut = 0;
  let downOut = 0;
  const up = new TapAfterForward({ push: (c) => void (upOut += c.length) }, t.tap, 'up');
  const down = new TapAfterForward({ push: (c) => void (downOut += c.length) }, t.tap, 'down');
  return {
    ...t,
    client: (c) => up.push(c, clock.nowNs()),
    sent: () => up.written(upOut, clock.nowNs()),
    redis: (c) => down.push(c, clock.nowNs()),
    delivered: () => down.written(downOut, clock.nowNs()),
  };
}

/** The tap behind a frame chain with a stage that passes everything (a framed connection). */
function framed(
  clock: FakeClock,
  stage: FrameStage = {},
  maxRequestBytes?: number,
  maxReplyBytes?: number,
): Side & { chain: FrameChain; upBytes: Buffer[]; downChunks: [string, number][] } {
  const t = newTap();
  const upBytes: Buffer[] = [];
  /** Each chunk toward the client, with the time (us) it went. */
  const downChunks: [string, number][] = [];
  let upOut = 0;
  let downOut = 0;
  const down = new TapAfterForward({ push: (c) => void (downOut += c.length) }, t.tap, 'down');
  const chain = new FrameChain({
    conn: { id: 1, nowNs: () => clock.nowNs(), close: () => undefined, closed: new Promise(() => undefined) },
    scheduler: new ManualScheduler(clock),
    upDelayNs: () => 0,
    up: { push: (c) => void (upOut += c.length, upBytes.push(c)), end: () => undefined },
    down: { push: (c, ns) => (downChunks.push([c.toString('latin1'), ns / 1000]), down.push(c, ns)), end: () => undefined },
    log: () => undefined,
    tap: t.tap.framed(),
    maxRequestBytes,
    maxReplyBytes,
  });
  chain.add('stage', stage, 0);
  chain.startReplies();
  const up = new TapAfterForward(chain, t.tap, 'up');
  return {
    ...t,
    chain,
    upBytes,
    downChunks,
    client: (c) => up.push(c, clock.nowNs()),
    sent: () => up.written(chain.clientOffsetAt(upOut), clock.nowNs()),
    redis: (c) => chain.pushReply(c, clock.nowNs()),
    delivered: () => down.written(downOut, clock.nowNs()),
  };
}

/** One step of a session: client bytes, Redis bytes (`|` for CRLF), or a write report, at a time (us). */
type Step = ['up' | 'down', string, number] | ['sent' | 'delivered', number];

const HELLO3 = '%7|$6|server|$5|redis|$7|version|$6|7.0.15|$5|proto|:3|$2|id|:5|$4|mode|$10|standalone|$4|role|$6|master|$7|modules|*0|';
const cmd = (...args: string[]): string => `*${args.length}|${args.map((a) => `$${a.length}|${a}|`).join('')}`;

/** request, reply, at t: sent at t+1, reply at t+2, delivered at t+3. */
const x = (request: string, reply: string, t: number): Step[] => [
  ['up', request, t],
  ['sent', t + 1],
  ['down', reply, t + 2],
  ['delivered', t + 3],
];

const SESSIONS: Record<string, Step[]> = {
  'loop and pipeline': [
    ...x(cmd('SET', 'k', 'v'), '+OK|', 0),
    ...x(cmd('GET', 'k'), '$1|v|', 10),
    ...x(cmd('GET', 'k').repeat(16) + cmd('INCR', 'n').repeat(4), '$1|v|'.repeat(16) + ':1|:2|:3|:4|', 20),
    ...x(cmd('GET', 'nope') + cmd('LPUSH', 'k', 'a'), "$-1|-WRONGTYPE Operation against a key holding the wrong kind of value|", 30),
  ],
  'MULTI/EXEC, queue-time error, blocking, inline': [
    ...x('MULTI|SET a 1|INCR|EXEC|', "+OK|+QUEUED|-ERR wrong number of arguments for 'incr' command|-EXECABORT Transaction discarded.|", 0),
    ...x(cmd('MULTI') + cmd('BLPOP', 'q', '0') + cmd('EXEC'), '+OK|+QUEUED|*1|*-1|', 10),
    ...x(cmd('BLPOP', 'q', '1'), '*-1|', 20),
    ...x('XREAD COUNT 1 BLOCK 5 STREAMS s $|', '*-1|', 30),
    ...x('PING|||ECHO hi|', '+PONG|$2|hi|', 40),
  ],
  'CLIENT REPLY OFF/SKIP/ON': [
    ['up', 'CLIENT REPLY SKIP|PING|PING|', 0],
    ['sent', 1],
    ['down', '+PONG|', 2],
    ['delivered', 3],
    ['up', 'CLIENT REPLY OFF|PING|CLIENT REPLY SKIP|PING|CLIENT REPLY ON|PING|', 10],
    ['sent', 11],
    ['down', '+OK|+PONG|', 12],
    ['delivered', 13],
  ],
  'RESP2 pub/sub': [
    ...x('SUBSCRIBE a b|', '*3|$9|subscribe|$1|a|:1|*3|$9|subscribe|$1|b|:2|', 0),
    ...x('PSUBSCRIBE p*|', '*3|$10|psubscribe|$2|p*|:3|', 10),
    ['down', '*3|$7|message|$1|a|$2|hi|*4|$8|pmessage|$2|p*|$2|pq|$2|yo|', 15],
    ['delivered', 16],
    ...x('PING|', '*2|$4|pong|$0||', 20),
    ...x('UNSUBSCRIBE|', '*3|$11|unsubscribe|$1|b|:2|*3|$11|unsubscribe|$1|a|:1|', 40),
    ...x('PUNSUBSCRIBE|', '*3|$12|punsubscribe|$2|p*|:0|', 50),
    ...x('PING|', '+PONG|', 70),
  ],
  'RESP3: HELLO 3, pushes, confirmations, invalidation': [
    ...x('HELLO 3|', HELLO3, 0),
    ...x('SUBSCRIBE a b|', '>3|$9|subscribe|$1|a|:1|>3|$9|subscribe|$1|b|:2|', 10),
    ['up', 'GET x|', 20],
    ['sent', 21],
    ['down', '>3|$7|message|$1|a|$2|hi|_|', 22],
    ['delivered', 23],
    ['down', '>2|$10|invalidate|*1|$1|x|', 25],
    ['delivered', 26],
    ...x('UNSUBSCRIBE|', '>3|$11|unsubscribe|$1|b|:1|>3|$11|unsubscribe|$1|a|:0|', 30),
  ],
  'MONITOR, then RESET': [
    ...x('MONITOR|', '+OK|', 0),
    ...x('PING|', '+PONG|+1795978256.184874 [0 unix:/tmp/r.sock] "PING"|', 10),
    ['down', '+1795978256.284874 [0 127.0.0.1:5000] "set" "x" "1"|', 15],
    ['delivered', 16],
    ...x('RESET|', '+RESET|', 20),
    ...x('PING|', '+PONG|', 30),
  ],
  // Redis answers the two, then refuses the bad count: the replies and its error in one write.
  'a request Redis refuses, behind two it answers': [
    ['up', cmd('SET', 'a', '1') + cmd('PING') + '*1|$-3|', 0],
    ['sent', 1],
    ['down', '+OK|+PONG|-ERR Protocol error: invalid bulk length|', 2],
    ['delivered', 3],
  ],
  'a request Redis refuses while a SUBSCRIBE waits for its second confirmation': [
    ['up', cmd('SUBSCRIBE', 'a', 'b'), 0],
    ['sent', 1],
    ['down', '*3|$9|subscribe|$1|a|:1|', 2],
    ['delivered', 3],
    ['up', cmd('PING') + '*1|$-3|', 10],
    ['sent', 11],
    ['down', '*3|$9|subscribe|$1|b|:2|', 12],
    ['delivered', 13],
    ['down', '*2|$4|pong|$0||-ERR Protocol error: invalid bulk length|', 20],
    ['delivered', 21],
  ],
  // The master's writes after +CONTINUE are valid RESP: they answered the replica's REPLCONF ACKs, framed or not.
  'a replica: PSYNC answered by +CONTINUE, then the master\'s writes and GETACK, and the replica\'s ACK': [
    ...x('PING|', '+PONG|', 0),
    ...x(cmd('REPLCONF', 'listening-port', '6380'), '+OK|', 10),
    ...x(cmd('PSYNC', 'abc', '100'), '+CONTINUE|', 20),
    ['down', cmd('SET', 'k', 'v') + cmd('PING'), 30],
    ['delivered', 31],
    ['up', cmd('REPLCONF', 'ACK', '130'), 40],
    ['sent', 41],
    ['down', cmd('REPLCONF', 'GETACK', '*'), 50],
    ['delivered', 51],
  ],
  'a pipeline sent before its replies come, delivered late': [
    ['up', cmd('SET', 'a', '1') + cmd('GET', 'a'), 0],
    ['up', cmd('GET', 'b') + cmd('INCR', 'c'), 5],
    ['sent', 6],
    ['down', '+OK|$1|1|', 7],
    ['down', '$-1|:1|', 8],
    ['delivered', 30],
  ],
};

function play(side: Side, clock: FakeClock, steps: Step[], split: Split): void {
  let seed = 1;
  for (const step of steps) {
    if (step[0] === 'sent' || step[0] === 'delivered') {
      clock.setNs(Math.max(clock.nowNs(), step[1] * 1000));
      if (step[0] === 'sent') side.sent();
      else side.delivered();
      continue;
    }
    const [dir, text, us] = step as ['up' | 'down', string, number];
    clock.setNs(Math.max(clock.nowNs(), us * 1000));
    for (const c of chunks(resp(text), split, seed++)) (dir === 'up' ? side.client : side.redis)(c);
  }
  side.tap.close(clock.nowNs() + 1000);
}

/** What the tap counted, without chunksDown: a framed connection hands replies on a frame per chunk. */
function counted(side: Side): unknown {
  const { chunksDown, ...counters } = side.tap.counters();
  void chunksDown;
  return { counters, commands: side.commands.snapshot(), events: side.events, info: { ...side.tap.info(), counters: undefined } };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(['whole', 'bytes', 'random'] as const)('framed and unframed taps count the same (%s chunks)', (split) => {
  for (const [name, steps] of Object.entries(SESSIONS)) {
    it(name, () => {
      const c1 = new FakeClock();
      const c2 = new FakeClock();
      const a = unframed(c1);
      const b = framed(c2);
      play(a, c1, steps, split);
      play(b, c2, steps, split);
      expect(a.tap.counters().commands).toBeGreaterThan(0);
      expect(counted(b)).toEqual(counted(a));
      // The replica's session: matching stopped at +CONTINUE, so the writes answered no ACK (3 replies, the ACK not timed).
      if (name.startsWith('a replica')) expect(b.tap.info()).toMatchObject({ replication: true, outstanding: 0, counters: { replies: 3 } });
    });
  }
});

describe('a framed connection frames each byte once per direction', () => {
  /** Bytes pushed into every request framer and every reply framer while `run` runs. */
  function framedBytes(run: () => void): { requests: number; replies: number } {
    const n = spyOnFramers();
    run();
    vi.restoreAllMocks();
    return n;
  }

  const bytesOf = (session: Step[], dir: 'up' | 'down'): number =>
    session.reduce((sum, s) => sum + (s[0] === dir && typeof s[1] === 'string' ? resp(s[1]).length : 0), 0);

  it('unframed: the tap frames each stream once', () => {
    const clock = new FakeClock();
    let side!: Side;
    const n = framedBytes(() => {
      side = unframed(clock);
      play(side, clock, SESSIONS['loop and pipeline']!, 'random');
    });
    const session = SESSIONS['loop and pipeline']!;
    expect(n).toEqual({ requests: bytesOf(session, 'up'), replies: bytesOf(session, 'down') });
    expect(side.tap.counters().bytesUp).toBe(n.requests);
  });

  it('framed: the chain frames each stream once and the tap frames nothing of it', () => {
    const refused = resp('-ERR Protocol error: invalid bulk length|').length;
    for (const [name, session] of Object.entries(SESSIONS)) {
      const clock = new FakeClock();
      const n = framedBytes(() => play(framed(clock), clock, session, 'random'));
      expect(n.requests).toBe(bytesOf(session, 'up'));
      // After a request desync the chain stops framing once the replies before it are through, which
      // can be inside a chunk: the part of Redis's error that chunk held is framed again by the tap.
      const again = name.startsWith('a request Redis refuses') ? n.replies - bytesOf(session, 'down') : 0;
      expect(again).toBeGreaterThanOrEqual(0);
      expect(again).toBeLessThan(refused);
    }
  });

  it('a request a stage answers in Redis\'s place changes no reply mode: CLIENT REPLY OFF and MONITOR refused there', () => {
    const clock = new FakeClock();
    const refuse = new Set(['CLIENT', 'MONITOR', 'MULTI']);
    const stage: FrameStage = { onRequest: (r) => (refuse.has(r.name) ? { kind: 'answer', reply: Buffer.from('-ERR disabled\r\n') } : { kind: 'forward' }) };
    const side = framed(clock, stage);
    // Redis never sees them: it answers each PING, and each MONITOR is refused (a second one too).
    const local = (request: string, t: number): Step[] => [['up', request, t], ['sent', t + 1], ['delivered', t + 3]];
    const steps = [
      ...local(cmd('CLIENT', 'REPLY', 'OFF'), 0),
      ...x(cmd('PING'), '+PONG|', 10),
      ...x(cmd('PING'), '+PONG|', 20),
      ...local(cmd('MONITOR'), 30),
      ...local(cmd('MONITOR'), 40),
      ...x(cmd('PING'), '+PONG|', 50),
      // Nor MULTI: what comes after it runs at once, a BLPOP blocks.
      ...local(cmd('MULTI'), 60),
      ...x(cmd('BLPOP', 'q', '1'), '*-1|', 70),
    ];
    play(side, clock, steps, 'whole');
    expect(side.tap.counters()).toMatchObject({ commands: 8, replies: 8, errorReplies: 4, roundTrips: 8, pushes: 0, blockingCommands: 1 });
    const snap = side.commands.snapshot();
    expect(snap['PING']?.clientUs).toMatchObject({ count: 3, max: 3 });
    expect(snap['MONITOR']?.clientUs).toMatchObject({ count: 2, max: 3 });
    expect(side.events.filter((e) => e.type === 'command').map((e) => (e as { reply: string }).reply)).toEqual(['-', '+', '+', '-', '-', '+', '-', '*']);
  });

  it('a MULTI a stage answers opens no transaction for the requests behind it in the same read', () => {
    const clock = new FakeClock();
    const stage: FrameStage = { onRequest: (r) => (r.name === 'MULTI' ? { kind: 'answer', reply: Buffer.from('-ERR disabled\r\n') } : { kind: 'forward' }) };
    const side = framed(clock, stage);
    // One write: Redis runs the SET and the BLPOP at once, then replies go off (no reply to EXEC).
    const pipeline = cmd('MULTI') + cmd('SET', 'k', 'v') + cmd('BLPOP', 'q', '1') + cmd('CLIENT', 'REPLY', 'OFF') + cmd('EXEC');
    const steps: Step[] = [['up', pipeline, 0], ['sent', 1], ['down', '+OK|*-1|', 2], ['delivered', 3], ...x(cmd('PING') + cmd('CLIENT', 'REPLY', 'ON'), '+OK|', 10)];
    play(side, clock, steps, 'whole');
    expect(side.tap.info()).toMatchObject({ desynced: false, outstanding: 0 });
    expect(side.tap.counters()).toMatchObject({ commands: 7, replies: 4, errorReplies: 1, roundTrips: 2, blockingCommands: 1, pushes: 0 });
    const replies = side.events.filter((e) => e.type === 'command').map((e) => (e as { reply: string }).reply);
    expect(replies).toEqual(['-', '+', '*', 'none', 'none', 'none', '+']);
  });

  it('a request too long to hold turns the stages off; the tap goes on counting and matching exactly', () => {
    const clock = new FakeClock();
    const stage: FrameStage = { onRequest: (r) => (r.name === 'GET' ? { kind: 'answer', reply: Buffer.from('$5\r\nlocal\r\n') } : { kind: 'forward' }) };
    const side = framed(clock, stage, 64);
    const set = cmd('SET', 'k', 'x'.repeat(100));
    const steps: Step[] = [
      ...x(cmd('GET', 'a'), '', 0),
      // 80 bytes of the SET held: over the 64 the chain may hold, so it passes them on and stops framing.
      ['up', set.slice(0, 80), 10],
      ['up', set.slice(80) + cmd('GET', 'a'), 11],
      ['sent', 12],
      ['down', '+OK|$1|v|', 13],
      ['delivered', 14],
    ];
    play(side, clock, steps, 'whole');
    // The first GET answered (Redis reads an empty line in its place), the second forwarded as it came.
    expect(Buffer.concat(side.upBytes).toString('latin1')).toBe(resp('|' + set + cmd('GET', 'a')).toString('latin1'));
    expect(side.tap.info()).toMatchObject({ desynced: false, outstanding: 0 });
    expect(side.tap.counters()).toMatchObject({ commands: 3, replies: 3, roundTrips: 2, unparsedBytes: 0 });
    expect(side.events.filter((e) => e.type === 'command').map((e) => (e as { reply: string }).reply)).toEqual(['$', '+', '$']);
  });

  it('a reply too long to hold turns the stages off: its bytes pass as they come, counted and matched exactly', () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const stage: FrameStage = {
      onRequest: (r) => (r.name === 'PING' ? { kind: 'answer', reply: Buffer.from('+local\r\n') } : { kind: 'forward' }),
      onReply: (r) => (seen.push(r.bytes.toString('latin1')), { kind: 'pass' }),
    };
    const side = framed(clock, stage, undefined, 64);
    const big = resp(`$100|${'v'.repeat(100)}|`).toString('latin1');
    const steps: Step[] = [
      ['up', cmd('SET', 'k', 'v') + cmd('PING') + cmd('GET', 'k') + cmd('INCR', 'n'), 0],
      ['sent', 1],
      // 80 bytes of GET's reply held: over the 64 the chain may hold, so it passes them on and stops framing.
      ['down', '+OK|' + big.slice(0, 80), 2],
      ['down', big.slice(80) + ':1|', 3],
      ['delivered', 4],
      // The stages are off: PING goes to Redis, its reply passes unchanged.
      ...x(cmd('PING'), '+PONG|', 10),
    ];
    play(side, clock, steps, 'whole');
    expect(seen).toEqual(['+OK\r\n']);
    // GET's reply went on in part before the rest came.
    expect(side.downChunks).toEqual([
      ['+OK\r\n', 2],
      ['+local\r\n', 2],
      [big.slice(0, 80), 2],
      [big.slice(80) + ':1\r\n', 3],
      ['+PONG\r\n', 12],
    ]);
    expect(side.tap.info()).toMatchObject({ desynced: false, outstanding: 0 });
    expect(side.tap.counters()).toMatchObject({ commands: 5, replies: 5, roundTrips: 2, unparsedBytes: 0 });
    expect(side.events.filter((e) => e.type === 'command').map((e) => (e as { reply: string }).reply)).toEqual(['+', '+', '$', ':', '+']);
  });

  it('a request too long to hold stays held while a local answer waits for an earlier reply (it went first)', () => {
    const clock = new FakeClock();
    const stage: FrameStage = { onRequest: (r) => (r.name === 'PING' ? { kind: 'answer', reply: Buffer.from('+local\r\n') } : { kind: 'forward' }) };
    const side = framed(clock, stage, 64);
    const set = cmd('SET', 'k', 'x'.repeat(100));
    const steps: Step[] = [
      ['up', cmd('GET', 'a') + cmd('PING'), 0],
      ['up', set.slice(0, 80), 1],
      ['up', set.slice(80), 2],
      ['sent', 3],
      ['down', '$1|v|+OK|', 4],
      ['delivered', 5],
    ];
    play(side, clock, steps, 'whole');
    // Passed on unframed at the SET's first part, the answer went ahead of GET's reply: the client read it as GET's.
    expect(side.downChunks.map((c) => c[0])).toEqual(['$1\r\nv\r\n', '+local\r\n', '+OK\r\n']);
    expect(Buffer.concat(side.upBytes).toString('latin1')).toBe(resp(cmd('GET', 'a') + '|' + set).toString('latin1'));
    expect(side.tap.counters()).toMatchObject({ commands: 3, replies: 3, unparsedBytes: 0 });
  });

  it('a reply too long to hold stays held while a local answer behind it waits for its place', () => {
    const clock = new FakeClock();
    const stage: FrameStage = { onRequest: (r) => (r.name === 'PING' ? { kind: 'answer', reply: Buffer.from('+local\r\n') } : { kind: 'forward' }) };
    const side = framed(clock, stage, undefined, 64);
    const big = resp(`$100|${'v'.repeat(100)}|`).toString('latin1');
    const steps: Step[] = [
      ...x(cmd('GET', 'k') + cmd('PING'), big.slice(0, 80), 0),
      ['down', big.slice(80), 5],
      ['delivered', 6],
      ...x(cmd('PING'), '', 10),
    ];
    play(side, clock, steps, 'whole');
    // Passed on unframed, the answer would have gone ahead of GET's reply; the stages stay on (PING answered again).
    expect(side.downChunks).toEqual([
      [big, 5],
      ['+local\r\n', 5],
      ['+local\r\n', 10],
    ]);
    expect(side.tap.counters()).toMatchObject({ commands: 3, replies: 3, unparsedBytes: 0 });
  });

  it('a reply too long to hold stays held while a stage holds a reply before it (redis_drop): it is not handed on', () => {
    const clock = new FakeClock();
    const stage: FrameStage = { onReply: (r) => (r.request?.name === 'GET' ? new Promise(() => undefined) : { kind: 'pass' }) };
    const side = framed(clock, stage, undefined, 64);
    const big = resp(`$100|${'v'.repeat(100)}|`).toString('latin1');
    play(side, clock, [...x(cmd('SET', 'k', 'v') + cmd('GET', 'k') + cmd('LRANGE', 'l', '0', '-1'), '+OK|$1|v|' + big.slice(0, 80), 0)], 'whole');
    clock.setNs(10_000);
    side.redis(resp(big.slice(80)));
    // Passed on unframed, GET's reply (and LRANGE's behind it) went to the client after all.
    expect(side.downChunks.map((c) => c[0])).toEqual(['+OK\r\n']);
    expect(side.chain.downPendingBytes).toBe(resp('$1|v|').length + big.length);
  });

  it('framed: bytes a stage made are framed by the tap, once, and counted as the reply', () => {
    const clock = new FakeClock();
    const stage: FrameStage = {
      onRequest: (r) => (r.name === 'GET' ? { kind: 'answer', reply: Buffer.from('-ERR local\r\n') } : { kind: 'forward' }),
      onReply: (r) => (r.request?.name === 'ECHO' ? { kind: 'replace', reply: Buffer.from('$3\r\nnew\r\n') } : { kind: 'pass' }),
    };
    const side = framed(clock, stage);
    const n = framedBytes(() =>
      play(side, clock, [...x(cmd('SET', 'a', '1') + cmd('GET', 'a') + cmd('ECHO', 'hi'), '+OK|$2|hi|', 0)], 'whole'),
    );
    const up = resp(cmd('SET', 'a', '1') + cmd('GET', 'a') + cmd('ECHO', 'hi')).length;
    // Redis's 13 bytes by the chain; the local answer (12) and the replacement (9) by the tap.
    expect(n).toEqual({ requests: up, replies: 13 + 12 + 9 });
    expect(side.tap.counters()).toMatchObject({ commands: 3, replies: 3, errorReplies: 1, roundTrips: 1, pushes: 0 });
    expect(side.commands.snapshot()['GET']).toMatchObject({ count: 1, errors: 1 });
    expect(side.events.filter((e) => e.type === 'command').map((e) => (e as { reply: string }).reply)).toEqual(['+', '-', '$']);
  });
});
