import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { FrameChain } from '../../src/stage/frame-chain.js';
import type { FrameStage } from '../../src/stage/types.js';

/**
 * A FIN held in the frame chain (behind local answers, or requests a stage holds) and then a reset
 * on the same side: Redis closed the connection (CLIENT KILL) and the proxy's next write to it
 * failed (EPIPE). The reset replaces the FIN and goes on at once; the chain is destroyed right
 * after it, which would leave a FIN waiting for local answers never sent (the client hung).
 */
function cmd(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

function setup(stage: FrameStage, upDelayNs: number) {
  const clock = new FakeClock();
  const scheduler = new ManualScheduler(clock);
  const ends: string[] = [];
  const chain = new FrameChain({
    conn: { id: 1, nowNs: () => clock.nowNs(), close: () => undefined, closed: new Promise(() => undefined) },
    scheduler,
    upDelayNs: () => upDelayNs,
    up: { push: () => undefined, end: (k) => ends.push(`up:${k}`) },
    down: { push: () => undefined, end: (k) => ends.push(`down:${k}`) },
    log: () => undefined,
  });
  chain.add('s', stage, 0);
  return { clock, scheduler, chain, ends };
}

const answerGets: FrameStage = {
  onRequest: (r) => (r.name === 'GET' ? { kind: 'answer', reply: Buffer.from('-ERR x\r\n') } : { kind: 'forward' }),
};

describe('FrameChain: a reset after a FIN held in the chain', () => {
  it('down: Redis FIN behind a local answer, then EPIPE', () => {
    const { clock, chain, ends } = setup(answerGets, 100_000);
    chain.push(Buffer.from(cmd('CLIENT', 'SETNAME', 'a') + cmd('GET', 'k')), clock.nowNs());
    chain.endReply('end', clock.nowNs());
    expect(ends).toEqual([]); // the local answer's delay is not over
    chain.endReply('reset', clock.nowNs());
    chain.destroy();
    expect(ends).toEqual(['down:reset']);
  });

  it('up: client FIN behind a request a stage holds, then a client reset', () => {
    const { clock, chain, ends } = setup({ onRequest: () => new Promise(() => undefined) }, 0);
    chain.push(Buffer.from(cmd('GET', 'k')), clock.nowNs());
    chain.end('end', clock.nowNs());
    expect(ends).toEqual([]);
    chain.end('reset', clock.nowNs());
    expect(ends).toEqual(['up:reset']);
  });

  it('a FIN already passed on stays the end', () => {
    const { clock, chain, ends } = setup(answerGets, 0);
    chain.endReply('end', clock.nowNs());
    chain.endReply('reset', clock.nowNs());
    expect(ends).toEqual(['down:end']);
  });
});
