/**
 * Frame stages that decide requests and replies later (a promise), at random, on a pipeline cut at
 * random, ending in a request desync or a request too long to hold: Redis gets each request the
 * stages forwarded, a blank line for each they answered, in order, then the rest unchanged; the
 * client gets one reply per request, in order, each local answer at its request's place.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { mulberry32 } from '../../src/link/rng.js';
import { FrameChain } from '../../src/stage/frame-chain.js';
import type { FrameStage, ReplyAction, RequestAction } from '../../src/stage/types.js';

function cmd(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

/** Whole requests at the start of `text` (RESP arrays and PING lines; blank lines skipped). */
function wholeRequests(text: string): number {
  let at = 0;
  let n = 0;
  for (;;) {
    if (text.startsWith('\r\n', at)) at += 2;
    else if (text.startsWith('PING\r\n', at)) {
      at += 6;
      n++;
    }
    else if (text[at] === '*') {
      const m = /^\*(\d+)\r\n/.exec(text.slice(at));
      if (!m) return n;
      let i = at + m[0].length;
      for (let a = 0; a < Number(m[1]); a++) {
        const b = /^\$(\d+)\r\n/.exec(text.slice(i));
        if (!b || i + b[0].length + Number(b[1]) + 2 > text.length) return n;
        i += b[0].length + Number(b[1]) + 2;
      }
      at = i;
      n++;
    } else return n;
  }
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

async function run(seed: number): Promise<void> {
  const r = mulberry32(seed);
  const requests: string[] = [];
  for (let i = 0; i < 30; i++) {
    const pick = Math.floor(r() * 4);
    requests.push(pick === 0 ? cmd('GET', `k${i}`) : pick === 1 ? cmd('SET', `k${i}`, 'v'.repeat(Math.floor(r() * 100))) : pick === 2 ? 'PING\r\n' : cmd('ECHO', `e${i}`));
  }
  const tail = r() < 0.5 ? '*1\r\n$x\r\n' : cmd('SET', 'big', 'x'.repeat(300)).slice(0, 200);
  const all = requests.join('') + tail;
  const step = 1 + Math.floor(r() * 40);
  const clock = new FakeClock();
  const scheduler = new ManualScheduler(clock);
  const up: string[] = [];
  const down: string[] = [];
  const pending: Array<() => void> = [];
  const answered = new Set<number>();
  const later = <A>(a: A): A | Promise<A> => (r() < 0.5 ? new Promise<A>((res) => pending.push(() => res(a))) : a);
  const stage: FrameStage = {
    onRequest: (q) => {
      if (r() >= 0.3) return later<RequestAction>({ kind: 'forward' });
      answered.add(q.seq);
      return later<RequestAction>({ kind: 'answer', reply: Buffer.from(`+local${q.seq}\r\n`) });
    },
    onReply: () => later<ReplyAction>({ kind: 'pass' }),
  };
  const chain = new FrameChain({
    conn: { id: 1, nowNs: () => clock.nowNs(), close: () => undefined, closed: new Promise(() => undefined) },
    scheduler,
    upDelayNs: () => 0,
    up: { push: (c) => up.push(c.toString('latin1')), end: () => undefined },
    down: { push: (c) => down.push(c.toString('latin1')), end: () => undefined },
    log: () => undefined,
    maxRequestBytes: 100,
  });
  chain.add('s', stage, 0);
  // Redis answers each whole request it got with its number.
  let redisAnswered = 0;
  const redis = (): void => {
    for (const n = wholeRequests(up.join('')); redisAnswered < n; redisAnswered++) chain.pushReply(Buffer.from(`:${redisAnswered}\r\n`), clock.nowNs());
  };
  for (let i = 0; i < all.length; i += step) {
    chain.push(Buffer.from(all.slice(i, i + step), 'latin1'), clock.nowNs());
    if (r() < 0.5 && pending.length > 0) pending.splice(Math.floor(r() * pending.length), 1)[0]!();
    await tick();
    if (r() < 0.5) redis();
  }
  // Then every decision, until nothing more comes.
  for (let idle = 0; idle < 3; idle = pending.length > 0 ? 0 : idle + 1) {
    pending.shift()?.();
    await tick();
    redis();
  }
  const wantUp = requests.map((q, seq) => (answered.has(seq) ? '\r\n' : q)).join('');
  const gotUp = up.join('');
  // A request too long to hold and not yet whole stays held until more of it comes.
  expect([wantUp + tail, wantUp], `seed ${seed}: bytes to Redis`).toContain(gotUp);
  let nth = 0;
  const wantDown = requests.map((_, seq) => (answered.has(seq) ? `+local${seq}\r\n` : `:${nth++}\r\n`)).join('');
  expect(down.join('').slice(0, wantDown.length), `seed ${seed}: replies`).toBe(wantDown);
}

describe('frame stages deciding later (promises), then a fall back', () => {
  it('keeps every request, answer and reply in order, whatever the cuts and the order decisions come in', async () => {
    for (let seed = 1; seed <= 30; seed++) await run(seed);
  });
});
