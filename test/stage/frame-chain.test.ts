import { describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { FrameChain } from '../../src/stage/frame-chain.js';
import type { FrameStage, ReplyAction, RequestAction, RequestInfo } from '../../src/stage/types.js';

const US = 1000;

function cmd(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

function setup(stage: FrameStage, upDelayNs = 0, maxReplyBytes?: number, maxRequestBytes?: number) {
  const clock = new FakeClock();
  const scheduler = new ManualScheduler(clock);
  const up: string[] = [];
  const down: string[] = [];
  const ends: string[] = [];
  const closes: string[] = [];
  const logs: string[] = [];
  const chain = new FrameChain({
    conn: { id: 1, nowNs: () => clock.nowNs(), close: (k) => void closes.push(k), closed: new Promise(() => undefined) },
    scheduler,
    upDelayNs: () => upDelayNs,
    up: { push: (c) => up.push(c.toString('latin1')), end: (k) => ends.push(`up:${k}`) },
    down: { push: (c) => down.push(c.toString('latin1')), end: (k) => ends.push(`down:${k}`) },
    log: (l) => void logs.push(l),
    maxReplyBytes,
    maxRequestBytes,
  });
  chain.add('s', stage, 0);
  const client = (s: string): void => chain.push(Buffer.from(s, 'latin1'), clock.nowNs());
  const redis = (s: string): void => chain.pushReply(Buffer.from(s, 'latin1'), clock.nowNs());
  return { clock, scheduler, chain, up, down, ends, closes, logs, client, redis };
}

const answerGets: FrameStage = {
  onRequest: (r) => (r.name === 'GET' ? { kind: 'answer', reply: Buffer.from(`$5\r\nlocal\r\n`) } : { kind: 'forward' }),
};

describe('FrameChain (ManualScheduler)', () => {
  it('fills RequestInfo: seq, name, args, firstKey, bytes, inMulti', () => {
    const seen: RequestInfo[] = [];
    const { client } = setup({ onRequest: (r) => (seen.push(r), { kind: 'forward' }) });
    client(cmd('multi') + cmd('set', 'k1', 'v') + cmd('exec') + 'object encoding k2\r\n' + cmd('eval', 's', '1', 'k3'));
    expect(seen.map((r) => [r.seq, r.name, r.args.map(String), r.firstKey?.toString(), r.inMulti])).toEqual([
      [0, 'MULTI', [], undefined, false],
      [1, 'SET', ['k1', 'v'], 'k1', true],
      [2, 'EXEC', [], undefined, false], // it ends the transaction, it is not queued in it
      [3, 'OBJECT', ['encoding', 'k2'], 'k2', false],
      [4, 'EVAL', ['s', '1', 'k3'], 'k3', false],
    ]);
    expect(seen[1]!.bytes.toString()).toBe(cmd('set', 'k1', 'v'));
  });

  it('places a local answer at its request position, after the up delay', () => {
    const { clock, scheduler, up, down, client, redis } = setup(answerGets, 100 * US);
    client(cmd('set', 'a', '1') + cmd('get', 'a') + cmd('incr', 'n'));
    // Redis reads an empty line in the answered request's place (it ends a CLIENT REPLY SKIP there).
    expect(up.join('')).toBe(cmd('set', 'a', '1') + '\r\n' + cmd('incr', 'n'));
    scheduler.runUntil(100 * US);
    expect(down).toEqual([]); // waits for SET's reply
    redis('+OK\r\n');
    expect(down.join('')).toBe('+OK\r\n$5\r\nlocal\r\n');
    redis(':1\r\n');
    expect(down.join('')).toBe('+OK\r\n$5\r\nlocal\r\n:1\r\n');
    expect(clock.nowNs()).toBe(100 * US);
  });

  it('holds a local answer until its up delay has passed even when Redis is quicker', () => {
    const { scheduler, down, client, redis } = setup(answerGets, 100 * US);
    client(cmd('get', 'a') + cmd('ping'));
    redis('+PONG\r\n');
    expect(down).toEqual([]);
    scheduler.runUntil(99 * US);
    expect(down).toEqual([]);
    scheduler.runUntil(100 * US);
    expect(down.join('')).toBe('$5\r\nlocal\r\n+PONG\r\n');
  });

  it('replaces and drops replies; a dropped request holds every later reply', () => {
    const { down, up, client, redis } = setup({
      onRequest: (r) => (r.name === 'DEL' ? { kind: 'drop' } : { kind: 'forward' }),
      onReply: (r): ReplyAction =>
        r.request?.name === 'ECHO' ? { kind: 'replace', reply: Buffer.from('+rewritten\r\n') } : { kind: 'pass' },
    });
    client(cmd('echo', 'x') + cmd('ping'));
    redis('$1\r\nx\r\n+PONG\r\n');
    expect(down.join('')).toBe('+rewritten\r\n+PONG\r\n');
    client(cmd('del', 'k') + cmd('ping'));
    expect(up.join('')).not.toContain('DEL');
    redis('+PONG\r\n');
    expect(down.join('')).toBe('+rewritten\r\n+PONG\r\n');
  });

  it('a promise holds its frame and everything behind it, in order', async () => {
    let release!: (a: RequestAction) => void;
    const { up, client } = setup({
      onRequest: (r) =>
        r.name === 'GET' ? new Promise<RequestAction>((res) => (release = res)) : { kind: 'forward' },
    });
    client(cmd('set', 'a', '1') + cmd('get', 'a') + cmd('incr', 'n'));
    expect(up.join('')).toBe(cmd('set', 'a', '1'));
    client(cmd('ping'));
    expect(up.join('')).toBe(cmd('set', 'a', '1'));
    release({ kind: 'forward' });
    await Promise.resolve();
    await Promise.resolve();
    expect(up.join('')).toBe(cmd('set', 'a', '1') + cmd('get', 'a') + cmd('incr', 'n') + cmd('ping'));
  });

  it('a reply promise holds later replies; pushes keep their place', async () => {
    let release!: (a: ReplyAction) => void;
    const { down, client, redis } = setup({
      onReply: (r) => (r.request?.name === 'ECHO' ? new Promise<ReplyAction>((res) => (release = res)) : { kind: 'pass' }),
    });
    client(cmd('hello', '3') + cmd('echo', 'x') + cmd('ping'));
    redis('%1\r\n+proto\r\n:3\r\n$1\r\nx\r\n>2\r\n+invalidate\r\n*0\r\n+PONG\r\n');
    expect(down.join('')).toBe('%1\r\n+proto\r\n:3\r\n');
    release({ kind: 'replace', reply: Buffer.from('+X\r\n') });
    await new Promise((r) => setImmediate(r));
    expect(down.join('')).toBe('%1\r\n+proto\r\n:3\r\n+X\r\n>2\r\n+invalidate\r\n*0\r\n+PONG\r\n');
  });

  it('keeps alignment through SUBSCRIBE confirmations, RESP2 messages and CLIENT REPLY OFF', () => {
    const seen: string[] = [];
    const { down, client, redis } = setup({
      onRequest: (r) => (r.name === 'PING' ? { kind: 'answer', reply: Buffer.from('+LOCALPONG\r\n') } : { kind: 'forward' }),
      onReply: (r) => (seen.push(`${r.request?.name ?? 'push'}:${r.bytes.length}`), { kind: 'pass' }),
    });
    client(cmd('client', 'reply', 'off') + cmd('set', 'a', '1') + cmd('client', 'reply', 'on') + cmd('subscribe', 'c1', 'c2'));
    redis('+OK\r\n');
    redis('*3\r\n$9\r\nsubscribe\r\n$2\r\nc1\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$2\r\nc2\r\n:2\r\n');
    redis('*3\r\n$7\r\nmessage\r\n$2\r\nc1\r\n$2\r\nhi\r\n');
    client(cmd('ping'));
    expect(seen.map((s) => s.split(':')[0])).toEqual(['CLIENT', 'SUBSCRIBE', 'SUBSCRIBE', 'push']);
    expect(down.join('')).toBe(
      '+OK\r\n*3\r\n$9\r\nsubscribe\r\n$2\r\nc1\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$2\r\nc2\r\n:2\r\n' +
        '*3\r\n$7\r\nmessage\r\n$2\r\nc1\r\n$2\r\nhi\r\n+LOCALPONG\r\n',
    );
  });

  it('falls back to passing bytes unchanged when the reply stream is not RESP', () => {
    const { down, client, redis } = setup({ onReply: () => ({ kind: 'drop' }) });
    client(cmd('ping'));
    redis('?garbage\r\n');
    expect(down.join('')).toBe('?garbage\r\n');
    redis('+more');
    expect(down.join('')).toBe('?garbage\r\n+more');
  });

  it("no stage acts on a replica's stream once PSYNC is answered: both ways pass unchanged", () => {
    const stage: FrameStage = {
      onRequest: (r) => (r.name === 'REPLCONF' ? { kind: 'answer', reply: Buffer.from('-ERR nope\r\n') } : { kind: 'forward' }),
      onReply: (r) => (r.isPush ? { kind: 'drop' } : { kind: 'pass' }),
    };
    const { up, down, client, redis } = setup(stage);
    // The handshake is requests and replies: the stage answers the REPLCONF there.
    client(cmd('REPLCONF', 'capa', 'psync2'));
    client(cmd('PSYNC', 'abc', '100'));
    // The master's writes come in the same read as +CONTINUE: valid RESP, but no reply to anything.
    redis('+CONTINUE\r\n' + cmd('SET', 'k', 'v'));
    client(cmd('REPLCONF', 'ACK', '130'));
    redis(cmd('REPLCONF', 'GETACK', '*') + cmd('PING'));
    expect(up.join('')).toBe('\r\n' + cmd('PSYNC', 'abc', '100') + cmd('REPLCONF', 'ACK', '130'));
    expect(down.join('')).toBe('-ERR nope\r\n+CONTINUE\r\n' + cmd('SET', 'k', 'v') + cmd('REPLCONF', 'GETACK', '*') + cmd('PING'));
  });

  it('passes the end of each direction on after what it holds', () => {
    const { ends, up, client, chain, clock } = setup({ onRequest: () => ({ kind: 'forward' }) });
    client(cmd('ping').slice(0, 5));
    chain.end('end', clock.nowNs());
    expect(up).toEqual([]);
    expect(ends).toEqual(['up:end']);
  });

  it("passes Redis's end on only after a local answer still in its delay", () => {
    const { ends, down, scheduler, client, redis, chain, clock } = setup(answerGets, 50 * US);
    client(cmd('get', 'a') + cmd('quit'));
    redis('+OK\r\n');
    chain.endReply('end', clock.nowNs());
    expect(ends).toEqual([]);
    scheduler.runUntil(50 * US);
    expect(down.join('')).toBe('$5\r\nlocal\r\n+OK\r\n');
    expect(ends).toEqual(['down:end']);
  });

  it("passes the client's end on after a last request answered locally", () => {
    const { ends, up, client, chain, clock } = setup(answerGets);
    client(cmd('set', 'a', '1') + cmd('get', 'a'));
    chain.end('end', clock.nowNs());
    expect(up.join('')).toBe(cmd('set', 'a', '1') + '\r\n');
    expect(ends).toEqual(['up:end']);
  });

  it('frames a pipeline fed byte by byte and at random splits, forwarding it unchanged', () => {
    const input = cmd('set', 'k', 'v'.repeat(5000)) + 'PING\r\n\r\n' + cmd('get', 'k') + cmd('echo', '\r\n*1\r\n');
    for (const step of [1, 7, 4096]) {
      const names: string[] = [];
      const { up, client } = setup({ onRequest: (r) => (names.push(r.name), { kind: 'forward' }) });
      for (let i = 0; i < input.length; i += step) client(input.slice(i, i + step));
      expect(up.join('')).toBe(input);
      expect(names).toEqual(['SET', 'PING', 'GET', 'ECHO']);
    }
  });

  it('closes the connection once what waits behind a reply a stage holds passes the reply bound (redis_drop)', () => {
    const { client, redis, down, closes, logs } = setup({ onReply: (r) => (r.request?.name === 'GET' ? new Promise<ReplyAction>(() => undefined) : { kind: 'pass' }) }, 0, 4096);
    client(cmd('GET', 'k'));
    redis('$1\r\nv\r\n');
    const set = cmd('SET', 'k', 'v'.repeat(100));
    // Each request waiting costs its bytes and HELD_REQUEST_COST_BYTES (1024, held-behind.ts), GET's
    // 22 too: 1046, then 1152 a SET (128 bytes), with the replies held (7, then 5 each): the third passes 4096.
    for (let i = 0; i < 2; i++) {
      client(set);
      redis('+OK\r\n');
    }
    expect(closes).toEqual([]);
    client(set);
    expect(closes).toEqual(['end']);
    expect(logs).toEqual(['conn 1: closed: over 4096 bytes held behind a reply a frame stage holds']);
    expect(down).toEqual([]);
  });

  it('counts what still waits when a stage holds reply after reply (redis_latency): a release does not zero it', async () => {
    // Each GET reply held 1 ms, as redis_latency holds it.
    let clockOf!: ReturnType<typeof setup>;
    const holdGets: FrameStage = {
      onReply: (r) => {
        if (r.request?.name !== 'GET') return { kind: 'pass' };
        const { scheduler, clock } = clockOf;
        return new Promise<ReplyAction>((res) => scheduler.schedule(clock.nowNs() + 1000 * US, () => res({ kind: 'pass' })));
      },
    };
    clockOf = setup(holdGets, 0, 6000);
    const { client, redis, down, closes, scheduler } = clockOf;
    // GET (22 bytes) and SET (128) each cost their bytes and 1024 while their replies wait.
    client(cmd('GET', 'a') + cmd('GET', 'b'));
    redis('$1\r\na\r\n$1\r\nb\r\n'); // GET a's reply held, GET b's behind it: 2 x 1046 + 14 = 2106
    const set = cmd('SET', 'k', 'v'.repeat(100));
    for (let i = 0; i < 2; i++) {
      client(set);
      redis('+OK\r\n');
    }
    scheduler.runUntil(1000 * US); // GET a's reply goes; GET b's is held next, both SETs still behind it
    await vi.waitFor(() => expect(down).toEqual(['$1\r\na\r\n']));
    // Waiting now: GET b and two SETs (1046 + 2 x 1152) and their replies (7 + 10): 3367.
    for (let i = 0; i < 2; i++) {
      client(set);
      redis('+OK\r\n');
    }
    expect(closes).toEqual([]); // 5686
    client(set); // 6838 > 6000 (counted from the release, as it was: 3456)
    expect(closes).toEqual(['end']);
    scheduler.runUntil(2000 * US);
  });

  describe('a fall back waits for a decision still pending (a promise)', () => {
    /** Answers GET with '+local' once `decide()` is called (a promise until then); forwards the rest. */
    function pendingGets() {
      const pending: Array<() => void> = [];
      const stage: FrameStage = {
        onRequest: (r) =>
          r.name === 'GET'
            ? new Promise<RequestAction>((res) => pending.push(() => res({ kind: 'answer', reply: Buffer.from('+local\r\n') })))
            : { kind: 'forward' },
      };
      return { stage, decide: () => pending.shift()!() };
    }

    it('a request too long to hold: the GET before it is answered, not sent to Redis undecided', async () => {
      const { stage, decide } = pendingGets();
      const { client, up, down, logs } = setup(stage, 0, undefined, 64);
      const set = cmd('SET', 'k', 'v'.repeat(100));
      client(cmd('GET', 'a'));
      client(set.slice(0, 80)); // over 64 bytes of SET held
      client(set.slice(80, 90));
      expect(up).toEqual([]);
      decide();
      await vi.waitFor(() => expect(down).toEqual(['+local\r\n']));
      client(set.slice(90, 100)); // still not whole: the stages turn off now
      expect(logs).toEqual(['conn 1: frame stages off (a request held over 64 bytes), bytes pass unchanged']);
      expect(up.join('')).toBe('\r\n' + set.slice(0, 100));
      client(set.slice(100));
      expect(up.join('')).toBe('\r\n' + set);
    });

    it('a request too long to hold: requests framed in the same chunk before it are decided first', () => {
      const { client, up, down } = setup(answerGets, 0, undefined, 64);
      const set = cmd('SET', 'k', 'v'.repeat(100));
      client(cmd('GET', 'a') + set.slice(0, 80));
      client(set.slice(80));
      expect(up.join('')).toBe('\r\n' + set);
      expect(down).toEqual(['$5\r\nlocal\r\n']);
    });

    it('a reply too long to hold: the GET behind it is answered in its place, after that reply', async () => {
      const { stage, decide } = pendingGets();
      const { client, redis, up, down } = setup(stage, 0, 64);
      const big = `$100\r\n${'x'.repeat(100)}\r\n`;
      client(cmd('LPOP', 'l') + cmd('GET', 'a'));
      redis(big.slice(0, 80));
      redis(big.slice(80, 90));
      expect(up.join('')).toBe(cmd('LPOP', 'l'));
      decide();
      await vi.waitFor(() => expect(up.join('')).toBe(cmd('LPOP', 'l') + '\r\n'));
      redis(big.slice(90));
      expect(down.join('')).toBe(big + '+local\r\n');
    });

    it('a request desync: an answer decided late goes to Redis (its empty line) ahead of the bytes after it', async () => {
      const { stage, decide } = pendingGets();
      const { client, redis, up, down } = setup(stage);
      client(cmd('PING') + cmd('GET', 'a') + '*1\r\n$x\r\n');
      redis('+PONG\r\n');
      decide();
      await vi.waitFor(() => expect(down).toEqual(['+PONG\r\n', '+local\r\n']));
      expect(up).toEqual([cmd('PING'), '\r\n', '*1\r\n$x\r\n']);
    });
  });
});
