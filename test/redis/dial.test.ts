import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Endpoint } from '../../src/endpoint.js';
import { dialRedis } from '../../src/redis/dial.js';

/** Piece sizes around Node's pool (4 KB) and the shared read buffer (64 KB), so reads of every size come. */
const PIECES = [1, 17, 4095, 4096, 4097, 65_535, 65_536, 65_537, 200_000, 3];

let server: net.Server | undefined;
let dir: string | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A server that writes `pieces` to each client, one per turn, then waits for `more()` to write the rest and end. */
type Listen = { port: 0; host: string } | { path: string };

async function byteServer(listen: Listen, pieces: Buffer[], rest: Buffer[]): Promise<{ at: Endpoint; more: () => Promise<void> }> {
  let go: (() => void) | undefined;
  const started = new Promise<void>((r) => (go = r));
  server = net.createServer(async (s) => {
    for (const p of pieces) {
      s.write(p);
      await tick();
    }
    await started;
    for (const p of rest) await new Promise((r) => s.write(p, r));
    s.end();
  });
  await new Promise<void>((r) => server!.listen(listen, r));
  const a = server.address();
  const at: Endpoint = typeof a === 'string' ? { kind: 'unix', path: a } : { kind: 'tcp', host: '127.0.0.1', port: a!.port };
  return { at, more: async () => go!() };
}

describe('dialRedis onData: reads copied out of one shared buffer', () => {
  it.each(['tcp', 'unix'] as const)('over %s: every byte once, in order, in chunks no later read overwrites; end and pause still work', async (kind) => {
    const pieces = PIECES.map((n) => randomBytes(n));
    const rest = [randomBytes(70_000), randomBytes(10)];
    if (kind === 'unix') dir = mkdtempSync(path.join(os.tmpdir(), 'dial-'));
    const { at, more } = await byteServer(kind === 'tcp' ? { port: 0, host: '127.0.0.1' } : { path: path.join(dir!, 's.sock') }, pieces, rest);
    const chunks: Buffer[] = [];
    // Two sockets read into the same buffer at once: neither's chunks may see the other's bytes.
    const other: Buffer[] = [];
    const a = dialRedis(at, { onData: (c) => chunks.push(c) });
    const b = dialRedis(at, { onData: (c) => other.push(c) });
    const ended = new Promise<void>((r) => a.once('end', r));
    const sent = Buffer.concat(pieces);
    const total = (list: Buffer[]): number => list.reduce((n, c) => n + c.length, 0);
    await vi.waitFor(() => expect(total(chunks)).toBe(sent.length), { timeout: 5000, interval: 5 });
    await vi.waitFor(() => expect(total(other)).toBe(sent.length), { timeout: 5000, interval: 5 });
    expect(Buffer.concat(chunks).equals(sent)).toBe(true);
    expect(Buffer.concat(other).equals(sent)).toBe(true);

    // Paused, a socket hands on nothing, though the bytes have reached it.
    a.pause();
    const before = chunks.length;
    await more();
    await vi.waitFor(() => expect(total(other)).toBe(sent.length + 70_010), { timeout: 5000, interval: 5 });
    for (let i = 0; i < 20; i++) await tick();
    expect(chunks.length).toBe(before);
    a.resume();
    await ended;
    expect(Buffer.concat(chunks).equals(Buffer.concat([sent, ...rest]))).toBe(true);
    expect(Buffer.concat(other).equals(Buffer.concat([sent, ...rest]))).toBe(true);
    a.destroy();
    b.destroy();
  });
});
