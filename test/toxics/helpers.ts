import { FakeClock } from '../../src/clock.js';
import { seededUniform } from '../../src/link/rng.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import type { ByteSink, ConnectionContext, RequestInfo } from '../../src/stage/types.js';
import type { EndKind } from '../../src/stage/types.js';

export const MS = 1_000_000;
export const US = 1000;

/** A fake sink that records what it gets and when. */
export class RecordingSink implements ByteSink {
  readonly chunks: { data: string; atNs: number }[] = [];
  ends: { kind: EndKind; atNs: number }[] = [];
  push(chunk: Buffer, nowNs: number): void {
    this.chunks.push({ data: chunk.toString('latin1'), atNs: nowNs });
  }
  end(kind: EndKind, nowNs: number): void {
    this.ends.push({ kind, atNs: nowNs });
  }
  get text(): string {
    return this.chunks.map((c) => c.data).join('');
  }
}

/** A fake connection that records close() calls. */
export function fakeConn(clock: FakeClock): ConnectionContext & { closes: EndKind[]; markClosed(): void } {
  let markClosed!: () => void;
  const closed = new Promise<void>((r) => (markClosed = r));
  const closes: EndKind[] = [];
  return { id: 1, nowNs: () => clock.nowNs(), close: (k) => void closes.push(k), closed, closes, markClosed };
}

export function env(seed = 1) {
  const clock = new FakeClock();
  const scheduler = new ManualScheduler(clock);
  return { clock, scheduler, uniform: seededUniform(seed) };
}

export function request(seq: number, name: string, key?: string, inMulti = false): RequestInfo {
  const args = key === undefined ? [] : [Buffer.from(key)];
  return { seq, name, args, firstKey: key === undefined ? undefined : Buffer.from(key), bytes: Buffer.from(name), inMulti };
}
