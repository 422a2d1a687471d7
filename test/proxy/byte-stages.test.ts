import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import type { ByteStageFactory, Direction } from '../../src/stage/types.js';
import { rawSocket } from './helpers.js';

/** Slices every chunk in two and hands the pieces on a tick later: it always holds something. */
function slicer(name: string, direction: Direction, seen: { bytes: number }): ByteStageFactory {
  return {
    kind: 'byte',
    name,
    direction,
    create: (_conn, next) => {
      const held: Buffer[] = [];
      let pending = 0;
      let timer: NodeJS.Immediate | undefined;
      const flush = (): void => {
        timer = undefined;
        for (const c of held.splice(0)) {
          pending -= c.length;
          next.push(c, 0);
        }
      };
      return {
        push(chunk) {
          seen.bytes += chunk.length;
          const half = chunk.length >> 1;
          for (const c of half > 0 ? [chunk.subarray(0, half), chunk.subarray(half)] : [chunk]) held.push(c);
          pending += chunk.length;
          timer ??= setImmediate(flush);
        },
        end(kind, nowNs) {
          flush();
          next.end(kind, nowNs);
        },
        drain: () => flush(),
        destroy() {
          if (timer) clearImmediate(timer);
          held.length = 0;
          pending = 0;
        },
        get pendingBytes() {
          return pending;
        },
      };
    },
  };
}

const echo = (v: string): string => `*2\r\n$4\r\nECHO\r\n$${v.length}\r\n${v}\r\n`;
const bulk = (v: string): string => `$${v.length}\r\n${v}\r\n`;

describe('byte stages on live connections (real redis-server)', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 100 }, compensationUs: { up: 0, down: 0 } });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it('adding and removing stages under traffic loses and reorders nothing', async () => {
    const s = await rawSocket(proxy.host!, proxy.port!);
    let got = '';
    s.on('data', (d: Buffer) => (got += d.toString('latin1')));
    const seenUp = { bytes: 0 };
    const seenDown = { bytes: 0 };
    let want = '';
    let n = 0;
    for (let round = 0; round < 40; round++) {
      let batch = '';
      for (let i = 0; i < 25; i++, n++) {
        const v = `v${n}-${'x'.repeat(n % 97)}`;
        batch += echo(v);
        want += bulk(v);
      }
      s.write(batch.slice(0, batch.length >> 1));
      if (round % 4 === 0) proxy.addStage(slicer('up-slicer', 'up', seenUp));
      if (round % 4 === 1) proxy.addStage(slicer('down-slicer', 'down', seenDown), 0);
      s.write(batch.slice(batch.length >> 1));
      if (round % 4 === 2) expect(proxy.removeStage('up-slicer')).toBe(true);
      if (round % 4 === 3) expect(proxy.removeStage('down-slicer')).toBe(true);
      await new Promise((r) => setImmediate(r));
    }
    await vi.waitUntil(() => got.length >= want.length, { timeout: 5000, interval: 5 });
    expect(got).toBe(want);
    // The stages really were in the path.
    expect(seenUp.bytes).toBeGreaterThan(0);
    expect(seenDown.bytes).toBeGreaterThan(0);
    expect(proxy.listStages()).toEqual([]);
    s.destroy();
  });

  it('counts the bytes a byte stage holds toward --high-water', async () => {
    // One connection only: the stage below keeps its state in this closure.
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
    let hold = true;
    const held: Buffer[] = [];
    let release: (() => void) | undefined;
    proxy.addStage({
      kind: 'byte',
      name: 'dam',
      direction: 'up',
      create: (_c, next) => {
        release = () => {
          hold = false;
          for (const c of held.splice(0)) next.push(c, 0);
        };
        return {
          push: (c) => (hold ? void held.push(c) : next.push(c, 0)),
          end: (k, t) => next.end(k, t),
          drain: () => release!(),
          destroy: () => void (held.length = 0),
          get pendingBytes() {
            return held.reduce((a, c) => a + c.length, 0);
          },
        };
      },
    });
    const s = await rawSocket(proxy.host!, proxy.port!);
    let got = 0;
    s.on('data', (d: Buffer) => (got += d.length));
    const value = 'y'.repeat(64 * 1024);
    let wrote = 0;
    // 32 MiB of ECHOs against a 4 MiB high-water mark: the proxy must stop reading. More than the
    // loopback's autotuned socket buffers can absorb on both sides (8 MiB sometimes could, and the
    // client never backed up).
    const writes = 512;
    for (let i = 0; i < writes; i++) wrote += s.write(echo(value)) ? 1 : 0;
    await vi.waitUntil(() => s.writableLength > 0 && held.length > 0, { timeout: 5000, interval: 5 });
    const heldBytes = held.reduce((a, c) => a + c.length, 0);
    expect(heldBytes).toBeLessThan(6 * 1024 * 1024);
    expect(got).toBe(0);
    proxy.removeStage('dam');
    const want = writes * bulk(value).length;
    await vi.waitUntil(() => got === want, { timeout: 20_000, interval: 5 });
    expect(wrote).toBeLessThan(writes);
    s.destroy();
  });
});
