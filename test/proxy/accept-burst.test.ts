/**
 * A burst of clients is accepted in one loop turn, not one per turn: libuv (since 1.45) accepts one
 * connection per turn, and a proxy's turns hold its clients' traffic, so the last of fifty clients
 * waited behind fifty turns for its first reply (docs/precision.md, "The 50-client maxima are the
 * accept queue"). The burst is made while this process's loop is blocked, so the kernel holds
 * every connection in the listening socket's queue when the loop next looks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseEndpoint } from '../../src/endpoint.js';
import { acceptPendingCall } from '../../src/link/native-alarm.js';
import type { ProxyListener } from '../../src/proxy/listener.js';
import { MAX_PENDING_ACCEPTS, PendingAccepts } from '../../src/proxy/pending-accepts.js';
import { SelfMonitor } from '../../src/proxy/self-monitor.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.js';
import { bareListener } from './helpers.js';

const CLIENTS = 20;
const PING = '*1\r\n$4\r\nPING\r\n';
const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-burst-'));
let redis: PrivateRedis;

beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * In another process: `n` clients connect to `port` at once, each sends a PING, and once all are
 * connected a marker file appears. Each client's outcome is one line on stdout: PONG, or CLOSED.
 * They stay open until stdin closes.
 */
function burst(at: { port: number } | { path: string }, n: number, marker: string): { child: ChildProcess; lines: string[] } {
  const script = `
    const net = require('node:net'); const fs = require('node:fs');
    let connected = 0;
    for (let i = 0; i < ${n}; i++) {
      const s = net.connect(${JSON.stringify('path' in at ? at : { host: '127.0.0.1', port: at.port })});
      s.on('error', () => {});
      s.once('connect', () => { s.write(${JSON.stringify(PING)}); if (++connected === ${n}) fs.writeFileSync(${JSON.stringify(marker)}, ''); });
      let got = '';
      s.on('data', (d) => { got += d; if (got === '+PONG\\r\\n') console.log('PONG'); });
      s.once('close', () => { if (got === '') console.log('CLOSED'); });
    }
    process.stdin.on('end', () => process.exit(0)); process.stdin.resume();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let rest = '';
  child.stdout!.on('data', (d: Buffer) => {
    const parts = (rest + d.toString()).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
  });
  return { child, lines };
}

/** Holds this process's loop (no accept can run) until `marker` exists; throws after `withinMs`. */
function blockUntil(marker: string, withinMs = 20_000): void {
  const endMs = Date.now() + withinMs;
  while (!existsSync(marker)) {
    if (Date.now() > endMs) throw new Error(`the burst's clients did not all connect within ${withinMs} ms`);
  }
}

describe('a burst of clients is accepted in one loop turn', () => {
  let listener: ProxyListener | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    child?.stdin?.end();
    child?.kill();
    await listener?.close();
    listener = undefined;
  });

  /** The libuv loop turn of each accepted connection, in order. */
  let turns: number[] = [];

  async function start(maxConnections?: number, listen = '127.0.0.1:0'): Promise<ProxyListener> {
    turns = [];
    const monitor = new SelfMonitor();
    vi.spyOn(monitor, 'opened').mockImplementation(() => void turns.push(performance.nodeTiming.uvMetricsInfo.loopCount));
    const l = (listener = bareListener(redis.address, {
      listen: parseEndpoint(listen, '--listen'),
      monitor,
      ...(maxConnections === undefined ? {} : { maxConnections }),
    }));
    await l.listen();
    return l;
  }

  it('the addon that takes in the rest of a burst is built here (CI builds it at npm ci)', () => {
    expect(acceptPendingCall()).toBeTypeOf('function');
    expect(PendingAccepts.open(true)).toBeInstanceOf(PendingAccepts);
  });

  it.each(['tcp', 'unix'])('takes every queued client in the turn that finds the first, and serves each (%s)', async (kind) => {
    const path = join(dir, 'proxy.sock');
    const l = await start(undefined, kind === 'tcp' ? '127.0.0.1:0' : `unix:${path}`);
    const marker = join(dir, `all-${kind}`);
    const b = burst(kind === 'tcp' ? { port: l.port! } : { path }, CLIENTS, marker);
    child = b.child;
    blockUntil(marker);
    await vi.waitFor(() => expect(turns).toHaveLength(CLIENTS), { timeout: 10_000 });
    expect(new Set(turns).size).toBe(1);
    await vi.waitFor(() => expect(b.lines.filter((x) => x === 'PONG')).toHaveLength(CLIENTS), { timeout: 10_000 });
    expect(b.lines).not.toContain('CLOSED');
  });

  it('--max-connections holds for the clients of a burst too: the rest are closed at once', async () => {
    const max = 5;
    const l = await start(max);
    const marker = join(dir, 'max');
    const b = burst({ port: l.port! }, CLIENTS, marker);
    child = b.child;
    blockUntil(marker);
    await vi.waitFor(() => expect(b.lines).toHaveLength(CLIENTS), { timeout: 10_000 });
    expect(turns).toHaveLength(max);
    expect(new Set(turns).size).toBe(1);
    expect(l.refused).toBe(CLIENTS - max);
    expect(b.lines.filter((x) => x === 'PONG')).toHaveLength(max);
    expect(b.lines.filter((x) => x === 'CLOSED')).toHaveLength(CLIENTS - max);
  });

  it('takes at most MAX_PENDING_ACCEPTS more in one turn: a larger burst spreads over a few', async () => {
    const l = await start();
    const marker = join(dir, 'many');
    const n = MAX_PENDING_ACCEPTS + 10;
    const b = burst({ port: l.port! }, n, marker);
    child = b.child;
    blockUntil(marker);
    await vi.waitFor(() => expect(b.lines.filter((x) => x === 'PONG')).toHaveLength(n), { timeout: 10_000 });
    // libuv's own accept and as many more as one call takes, then the rest in a later turn.
    expect(turns.filter((t) => t === turns[0])).toHaveLength(1 + MAX_PENDING_ACCEPTS);
    expect(turns.slice(1 + MAX_PENDING_ACCEPTS).every((t) => t > turns[0]!)).toBe(true);
  });

  it('a server that is not listening has nothing to drain', () => {
    const pending = PendingAccepts.open(true)!;
    const taken: net.Socket[] = [];
    pending.drain(net.createServer(), (s) => taken.push(s));
    expect(taken).toEqual([]);
  });
});
