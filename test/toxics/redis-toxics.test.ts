import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { FrameChain } from '../../src/stage/frame-chain.js';
import type { FrameStageFactory, RequestAction, ReplyAction } from '../../src/stage/types.js';
import { createToxic } from '../../src/toxics/index.js';
import { compileGlob } from '../../src/toxics/redis/glob.js';
import { env, fakeConn, MS, RecordingSink, request } from './helpers.js';

function stageOf(json: unknown, seed = 1) {
  const e = env(seed);
  const toxic = createToxic(json, { scheduler: e.scheduler, uniform: e.uniform });
  const conn = fakeConn(e.clock);
  const stage = (toxic.stage as FrameStageFactory).create(conn);
  return { ...e, toxic, conn, stage };
}

describe('Redis glob', () => {
  it('matches as KEYS does', () => {
    const m = (p: string, k: string): boolean => compileGlob(p)(Buffer.from(k));
    expect(m('user:*', 'user:1')).toBe(true);
    expect(m('user:*', 'users:1')).toBe(false);
    expect(m('h?llo', 'hallo')).toBe(true);
    expect(m('h[ae]llo', 'hello')).toBe(true);
    expect(m('h[^e]llo', 'hello')).toBe(false);
    expect(m('h[a-b]llo', 'hbllo')).toBe(true);
    expect(m('a\\*b', 'a*b')).toBe(true);
    expect(m('a\\*b', 'axb')).toBe(false);
    expect(m('a.b', 'axb')).toBe(false);
    expect(m('ké*', 'kéy')).toBe(true);
  });
});

describe('redis_error toxic', () => {
  it('answers only matching commands (name and first-key glob), never inside MULTI, EXEC included', () => {
    const { stage, toxic } = stageOf({ type: 'redis_error', attributes: { commands: ['get', 'exec'], keys: 'a:*', error: 'LOADING busy' } });
    const answer = { kind: 'answer', reply: Buffer.from('-LOADING busy\r\n') };
    expect(stage.onRequest!(request(0, 'GET', 'a:1'))).toEqual(answer);
    expect(stage.onRequest!(request(1, 'GET', 'b:1'))).toEqual({ kind: 'forward' });
    expect(stage.onRequest!(request(2, 'SET', 'a:1'))).toEqual({ kind: 'forward' });
    expect(stage.onRequest!(request(3, 'GET', 'a:2', true))).toEqual({ kind: 'forward' });
    expect(stage.onRequest!(request(4, 'EXEC'))).toEqual({ kind: 'forward' }); // no key: the glob cannot match
    expect(toxic.applications).toBe(1);
    const all = stageOf({ type: 'redis_error', attributes: { commands: ['EXEC'], error: 'EXECABORT x' } });
    expect(all.stage.onRequest!(request(0, 'EXEC'))).toMatchObject({ kind: 'answer' });
  });

  it('rolls toxicity per command', () => {
    const { stage, toxic } = stageOf({ type: 'redis_error', toxicity: 0.1, attributes: { error: 'ERR injected' } }, 3);
    let errors = 0;
    for (let i = 0; i < 10_000; i++) if ((stage.onRequest!(request(i, 'GET', 'k')) as RequestAction).kind === 'answer') errors++;
    expect(toxic.applications).toBe(errors);
    // Binomial(10000, 0.1): sd 30.
    expect(Math.abs(errors - 1000)).toBeLessThan(150);
  });
});

describe('redis_latency toxic', () => {
  it('holds the matching reply for latency ms and passes the others at once', async () => {
    const { stage, scheduler } = stageOf({ type: 'redis_latency', attributes: { commands: ['GET'], latency: 2.5 } });
    stage.onRequest!(request(0, 'GET', 'k'));
    stage.onRequest!(request(1, 'SET', 'k'));
    const held = stage.onReply!({ request: request(0, 'GET', 'k'), bytes: Buffer.from('$-1\r\n'), isPush: false });
    const other = stage.onReply!({ request: request(1, 'SET', 'k'), bytes: Buffer.from('+OK\r\n'), isPush: false });
    expect(other).toEqual({ kind: 'pass' });
    expect(held).toBeInstanceOf(Promise);
    let settled: ReplyAction | undefined;
    void (held as Promise<ReplyAction>).then((a) => (settled = a));
    scheduler.runUntil(2.4 * MS);
    await Promise.resolve();
    expect(settled).toBeUndefined();
    scheduler.runUntil(2.5 * MS);
    await Promise.resolve();
    expect(settled).toEqual({ kind: 'pass' });
  });

  it('holds matching replies one after another, each latency ms after the one before it left (in a frame chain)', async () => {
    const { stage, scheduler, conn } = stageOf({ type: 'redis_latency', attributes: { commands: ['GET'], latency: 2 } });
    const down = new RecordingSink();
    const chain = new FrameChain({ conn, scheduler, upDelayNs: () => 0, up: new RecordingSink(), down, log: () => undefined });
    chain.add('redis_latency', stage, 0);
    chain.push(Buffer.from('*2\r\n$3\r\nGET\r\n$1\r\na\r\n*2\r\n$3\r\nGET\r\n$1\r\nb\r\n*1\r\n$4\r\nPING\r\n'), 0);
    chain.pushReply(Buffer.from('$1\r\na\r\n$1\r\nb\r\n+PONG\r\n'), 0); // all three came at 0
    /** What reached the client by `ms` (each reply's text, @ the ms it left). */
    const sentBy = async (ms: number): Promise<string[]> => {
      scheduler.runUntil(ms * MS);
      await new Promise((r) => setImmediate(r)); // the released hold's promise callbacks
      return down.chunks.map((c) => `${c.data.split('\r\n').at(-2)}@${c.atNs / MS}`);
    };
    expect(await sentBy(2)).toEqual(['a@2']);
    // GET b's hold began when GET a's reply left, not when it came; PING waits behind it.
    expect(await sentBy(3.999)).toEqual(['a@2']);
    expect(await sentBy(4)).toEqual(['a@2', 'b@4', '+PONG@4']);
    chain.destroy();
  });
});

describe('redis_latency toxic, updated', () => {
  it('a held reply leaves the new latency after it came', async () => {
    const { stage, scheduler, clock, toxic } = stageOf({ type: 'redis_latency', attributes: { commands: ['GET'], latency: 1500 } });
    stage.onRequest!(request(0, 'GET', 'k'));
    clock.setNs(100 * MS);
    const held = stage.onReply!({ request: request(0, 'GET', 'k'), bytes: Buffer.from('$-1\r\n'), isPush: false }) as Promise<ReplyAction>;
    let settledAtNs = -1;
    void held.then(() => (settledAtNs = clock.nowNs()));
    scheduler.runUntil(300 * MS);
    toxic.update({ ...toxic.spec.attributes, latency: 250 }, 1);
    scheduler.runUntil(349 * MS);
    await Promise.resolve();
    expect(settledAtNs).toBe(-1);
    scheduler.runUntil(350 * MS);
    await Promise.resolve();
    expect(settledAtNs).toBe(350 * MS);
  });
});

describe('redis_drop toxic', () => {
  it('holds the dropped reply until the connection closes, then drops it; close:true closes', async () => {
    const { stage, conn } = stageOf({ type: 'redis_drop', attributes: { commands: ['GET'] } });
    stage.onRequest!(request(0, 'GET', 'k'));
    const held = stage.onReply!({ request: request(0, 'GET', 'k'), bytes: Buffer.from('$-1\r\n'), isPush: false }) as Promise<ReplyAction>;
    let settled: ReplyAction | undefined;
    void held.then((a) => (settled = a));
    await Promise.resolve();
    expect(settled).toBeUndefined();
    expect(conn.closes).toEqual([]);
    conn.markClosed();
    await held;
    expect(settled).toEqual({ kind: 'drop' });
    const c = stageOf({ type: 'redis_drop', attributes: { close: true } });
    c.stage.onRequest!(request(0, 'PING'));
    void c.stage.onReply!({ request: request(0, 'PING'), bytes: Buffer.from('+PONG\r\n'), isPush: false });
    expect(c.conn.closes).toEqual(['end']);
  });
});

describe('redis_latency and redis_drop: the requests they hit', () => {
  it('keep each one only until its reply or a later one comes (CLIENT REPLY OFF, a local answer: none will)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (const [type, attributes] of [['redis_latency', { commands: ['SET'], latency: 1 }], ['redis_drop', { commands: ['SET'] }]] as const) {
      const { stage } = stageOf({ type, attributes });
      const set = request(0, 'SET', 'k');
      gc();
      const beforeBytes = process.memoryUsage().heapUsed;
      for (let seq = 0; seq < 80_000; seq++) stage.onRequest!({ ...set, seq });
      expect(stage.onReply!({ request: request(80_000, 'PING'), bytes: Buffer.from('+PONG\r\n'), isPush: false })).toEqual({ kind: 'pass' });
      gc();
      // A Set kept all 80 000 (2.1 MB).
      expect(process.memoryUsage().heapUsed - beforeBytes, type).toBeLessThan(1_000_000);
    }
  });

  it('a reply of several frames is held (or dropped) at its first frame only; a skipped hit is forgotten', () => {
    const { stage } = stageOf({ type: 'redis_drop', attributes: { commands: ['SUBSCRIBE', 'GET'] } });
    const reply = (seq: number, name: string): unknown => stage.onReply!({ request: request(seq, name), bytes: Buffer.from('*0\r\n'), isPush: false });
    stage.onRequest!(request(0, 'GET', 'a'));
    stage.onRequest!(request(1, 'SUBSCRIBE', 'a'));
    stage.onRequest!(request(2, 'GET', 'b'));
    expect(reply(1, 'SUBSCRIBE')).toBeInstanceOf(Promise); // GET a's reply never came (CLIENT REPLY SKIP)
    expect(reply(1, 'SUBSCRIBE')).toEqual({ kind: 'pass' });
    expect(reply(2, 'GET')).toBeInstanceOf(Promise);
  });
});

describe('failover toxic', () => {
  it('answers LOADING for duration ms, then recovers by itself', () => {
    const { stage, clock } = stageOf({ type: 'failover', attributes: { duration: 10, mode: 'loading' } });
    expect(stage.onRequest!(request(0, 'GET', 'k'))).toEqual({ kind: 'answer', reply: Buffer.from('-LOADING Redis is loading the dataset in memory\r\n') });
    clock.setNs(10 * MS);
    expect(stage.onRequest!(request(1, 'GET', 'k'))).toEqual({ kind: 'forward' });
  });

  it('refuse: resets connections during the window', () => {
    const { conn, stage } = stageOf({ type: 'failover', attributes: { duration: 10 } });
    expect(conn.closes).toEqual(['reset']);
    expect(stage.onRequest!(request(0, 'PING'))).toEqual({ kind: 'drop' });
  });

  it('refuse: an update starts the window again and resets the connections open then, idle ones too', () => {
    const e = env();
    const toxic = createToxic({ type: 'failover', attributes: { duration: 10 } }, { scheduler: e.scheduler, uniform: e.uniform });
    e.clock.setNs(20 * MS); // the window is over: a connection opens and stays idle
    const conn = fakeConn(e.clock);
    (toxic.stage as FrameStageFactory).create(conn);
    expect(conn.closes).toEqual([]);
    toxic.update({ ...toxic.spec.attributes, duration: 10 }, 1);
    expect(conn.closes).toEqual(['reset']);
  });

  it("lets through what such a Redis still serves (its connect, INFO, CLIENT), unless the commands are named", () => {
    const loading = stageOf({ type: 'failover', attributes: { duration: 10, mode: 'loading' } }).stage;
    const served = (stage: typeof loading, name: string, sub?: string): boolean => (stage.onRequest!(request(0, name, sub)) as RequestAction).kind === 'forward';
    for (const [name, sub] of [['HELLO'], ['AUTH'], ['INFO'], ['SELECT'], ['CLIENT', 'setname'], ['CONFIG', 'GET'], ['SUBSCRIBE', 'c'], ['QUIT']] as const) {
      expect(served(loading, name, sub), name).toBe(true);
    }
    for (const [name, sub] of [['PING'], ['GET', 'k'], ['CLUSTER', 'info'], ['MEMORY', 'usage'], ['EVAL', 'return 1']] as const) {
      expect(served(loading, name, sub), name).toBe(false);
    }
    const down = stageOf({ type: 'failover', attributes: { duration: 10, mode: 'masterdown' } }).stage;
    // A replica cut off from its master still runs scripts and CLUSTER INFO (their `stale` flag); not PING or GET.
    for (const [name, sub, ok] of [['EVAL', 'return 1', true], ['CLUSTER', 'info', true], ['INFO', undefined, true], ['PING', undefined, false], ['GET', 'k', false]] as const) {
      expect(served(down, name, sub), name).toBe(ok);
    }
    const named = stageOf({ type: 'failover', attributes: { duration: 10, mode: 'loading', commands: ['info'] } }).stage;
    expect(served(named, 'INFO')).toBe(false);
  });

  it('masterdown answers MASTERDOWN', () => {
    const { stage } = stageOf({ type: 'failover', attributes: { duration: 10, mode: 'masterdown' } });
    const a = stage.onRequest!(request(0, 'SET', 'k')) as { reply: Buffer };
    expect(a.reply.toString()).toMatch(/^-MASTERDOWN /);
  });
});
