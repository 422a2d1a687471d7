import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { ByteChain } from '../../src/stage/byte-chain.js';
import { LinkStage } from '../../src/link/link-stage.js';
import type { ByteSink, ByteStage, ByteStageFactory } from '../../src/stage/types.js';
import type { EndKind } from '../../src/stage/types.js';

const US = 1000;

/** A test stage that holds everything until drained. */
function holder(name: string): ByteStageFactory & { held: () => number } {
  let stage: (ByteStage & { chunks: Buffer[] }) | undefined;
  return {
    kind: 'byte',
    name,
    direction: 'up',
    held: () => stage?.pendingBytes ?? 0,
    create: (_conn, next: ByteSink) => {
      const chunks: Buffer[] = [];
      stage = {
        chunks,
        push: (c) => void chunks.push(c),
        end: (k: EndKind, t: number) => next.end(k, t),
        drain: (t) => {
          for (const c of chunks.splice(0)) next.push(c, t);
        },
        destroy: () => void (chunks.length = 0),
        get pendingBytes() {
          return chunks.reduce((n, c) => n + c.length, 0);
        },
      };
      return stage;
    },
  };
}

function setup(delayNs: number) {
  const clock = new FakeClock();
  const scheduler = new ManualScheduler(clock);
  const out: string[] = [];
  const ctx = { id: 1, nowNs: () => clock.nowNs(), close: () => undefined, closed: new Promise<void>(() => undefined) };
  const chain = new ByteChain(ctx, { push: (c) => out.push(c.toString()), end: (k) => out.push(`<${k}>`) });
  chain.add({
    name: 'link',
    create: (_c, next) => new LinkStage({ scheduler, sampleDelayNs: () => delayNs, bandwidthBps: () => 0 }, next),
  });
  return { clock, scheduler, out, chain };
}

describe('ByteChain', () => {
  it('runs the link first; a stage added later sees what leaves the link', () => {
    const { scheduler, out, chain } = setup(100 * US);
    const h = holder('h');
    chain.push(Buffer.from('a'), 0);
    chain.add(h, 1);
    chain.push(Buffer.from('b'), 0);
    expect(chain.names).toEqual(['link', 'h']);
    expect(chain.pendingBytes).toBe(2);
    scheduler.runUntil(100 * US);
    expect(out).toEqual([]);
    expect(chain.pendingBytes).toBe(2);
    expect(h.held()).toBe(2);
  });

  it('removal drains what a stage holds into the next one, in order, before later bytes', () => {
    const { scheduler, out, chain, clock } = setup(0);
    const h = holder('h');
    chain.add(h, 1);
    chain.push(Buffer.from('1'), 0);
    chain.push(Buffer.from('2'), 0);
    expect(out).toEqual([]);
    expect(chain.remove('h', clock.nowNs())).toBe(true);
    chain.push(Buffer.from('3'), 0);
    chain.end('end', 0);
    scheduler.runUntil(0);
    expect(out).toEqual(['1', '2', '3', '<end>']);
    expect(chain.remove('h', 0)).toBe(false);
    expect(chain.pendingBytes).toBe(0);
  });

  it('inserts between stages by index and unlinks the middle one cleanly', () => {
    const { out, chain } = setup(0);
    const a = holder('a');
    const b = holder('b');
    chain.add(b, 1);
    chain.add(a, 1);
    expect(chain.names).toEqual(['link', 'a', 'b']);
    chain.push(Buffer.from('x'), 0);
    chain.remove('a', 0);
    expect(b.held()).toBe(1);
    chain.remove('b', 0);
    chain.push(Buffer.from('y'), 0);
    expect(out).toEqual(['x', 'y']);
  });
});
