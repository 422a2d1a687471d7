/**
 * Start-up tells the truth (issue 18 item 5): auto compensation only after a RESP answer to PING,
 * the measuring connection closed and out of the counters, and a stale unix socket file removed
 * when nothing listens on it (but never a live one).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.js';
import { startCliProxy } from '../hardening/helpers/cli-proxy.js';

/** The probe of a real Redis answers within a few ms: no warning comes in this long. */
const NO_WARNING_MS = 300;

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-startup-'));
let redis: PrivateRedis;
let authRedis: PrivateRedis;
let httpServer: http.Server;
let silent: net.Server;
const silentSockets = new Set<net.Socket>();
const addr = (s: net.Server | http.Server): string => `127.0.0.1:${(s.address() as net.AddressInfo).port}`;

beforeAll(async () => {
  redis = await startPrivateRedis();
  authRedis = await startPrivateRedis({ args: ['--requirepass', 'pw-startup'] });
  httpServer = http.createServer((_req, res) => res.end('hello'));
  silent = net.createServer((s) => {
    silentSockets.add(s); // accepts, reads, never answers, never closes
    s.on('close', () => silentSockets.delete(s));
  });
  await Promise.all([
    new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r)),
    new Promise<void>((r) => silent.listen(0, '127.0.0.1', r)),
  ]);
});
afterAll(async () => {
  for (const s of silentSockets) s.destroy();
  await Promise.all([redis?.stop(), authRedis?.stop(), new Promise((r) => httpServer.close(r)), new Promise((r) => silent.close(r))]);
  rmSync(dir, { recursive: true, force: true });
});

async function started(upstream: string, listen?: string) {
  const logs: string[] = [];
  const p = await startSingleNodeProxy({ upstream, ...(listen ? { listen } : {}), log: (l) => logs.push(l) });
  return { p, logs };
}

describe('auto compensation only for an upstream that answers PING like Redis', () => {
  for (const [what, upstream] of [['an HTTP server', () => addr(httpServer)], ['a listener that never answers', () => addr(silent)]] as const) {
    it(`${what}: says so, compensates nothing, and leaves no connection behind`, async () => {
      const { p, logs } = await started(upstream());
      try {
        expect(logs.join('\n')).toMatch(/warning: upstream 127\.0\.0\.1:\d+ did not answer PING like Redis .*; no compensation/);
        expect(p.compensationUs).toEqual({ up: 0, down: 0 });
        expect(p.stats().connections).toEqual({ active: 0, total: 0 });
        expect(p.stats().totals.commands).toBe(0);
      } finally {
        await p.close();
      }
    });
  }

  it('a Redis that wants AUTH (-NOAUTH) is Redis: measured, no warning, no connection counted', async () => {
    const { p, logs } = await started(authRedis.address);
    try {
      expect(logs.join('\n')).not.toMatch(/did not answer PING/);
      expect(p.stats().connections).toEqual({ active: 0, total: 0 });
    } finally {
      await p.close();
    }
  });

  it('a plain Redis: the measuring connections are closed and out of /stats', async () => {
    const { p, logs } = await started(redis.address);
    try {
      // A busy machine's hop is capped, and says so; nothing else is logged.
      expect(logs.filter((l) => !/^hop measured at \d+ us per direction \(a busy machine\?\)/.test(l))).toEqual([]);
      expect(p.stats().connections).toEqual({ active: 0, total: 0 });
      expect(p.stats().totals).toMatchObject({ commands: 0, replies: 0, roundTrips: 0 });
    } finally {
      await p.close();
    }
  });

  it('the CLI prints the warning and a zero compensation in its listening line', async () => {
    const cli = await startCliProxy(['--upstream', addr(httpServer)]);
    try {
      expect(cli.stderr()).toContain('did not answer PING like Redis');
      expect((cli.line as unknown as { compensationUs: unknown }).compensationUs).toEqual({ up: 0, down: 0 });
    } finally {
      await cli.stop();
    }
  });
});

describe('the start-up probe (any --compensate)', () => {
  it('--compensate off: a listener that never answers is named as not Redis; a real Redis draws no warning', async () => {
    const cli = await startCliProxy(['--upstream', addr(silent), '--compensate', 'off']);
    const ok = await startCliProxy(['--upstream', authRedis.address, '--compensate', 'off']);
    try {
      await vi.waitUntil(() => cli.stderr().includes('did not answer'), { timeout: 3000, interval: 10 });
      expect(cli.stderr()).toMatch(/warning: upstream 127\.0\.0\.1:\d+ did not answer PING like Redis \(no reply to PING/);
      await sleep(NO_WARNING_MS);
      expect(ok.stderr()).not.toContain('warning');
    } finally {
      await Promise.all([cli.stop(), ok.stop()]);
    }
  });
});

/** Socket files at `paths`, left behind by a process killed with SIGKILL while it listened on them. */
async function staleSockets(...paths: string[]): Promise<void> {
  const listen = paths.map((p) => `require('net').createServer().listen(${JSON.stringify(p)}, up)`).join(';');
  const script = `let left = ${paths.length}; const up = () => --left || console.log('up'); ${listen}`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((r) => child.stdout!.once('data', () => r()));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  for (const p of paths) expect(existsSync(p)).toBe(true);
}

describe('a unix socket file left behind', () => {
  it('is removed when nothing listens on it (a proxy killed with SIGKILL left it)', async () => {
    const path = join(dir, 'stale.sock');
    await staleSockets(path);
    const { p, logs } = await started(redis.address, path);
    try {
      expect(p.address).toBe(path);
      expect(logs.join('\n')).toContain(`removed stale unix socket ${path}`);
      const c = net.connect({ path });
      await new Promise<void>((r, j) => c.once('connect', () => r()).once('error', j));
      c.destroy();
    } finally {
      await p.close();
    }
  });

  it("--control's too: a killed proxy's control socket no longer stops the next start (exit 2, address already in use)", async () => {
    const listen = join(dir, 'stale-listen.sock');
    const control = join(dir, 'stale-control.sock');
    await staleSockets(listen, control);
    const logs: string[] = [];
    const p = await startSingleNodeProxy({ upstream: redis.address, listen, control: `unix:${control}`, compensationUs: { up: 0, down: 0 }, log: (l) => logs.push(l) });
    try {
      expect(logs.filter((l) => l.startsWith('removed stale unix socket'))).toEqual([
        `removed stale unix socket ${listen} (nothing was listening on it)`,
        `removed stale unix socket ${control} (nothing was listening on it)`,
      ]);
      const body = await new Promise<string>((resolve, reject) => {
        http.get({ socketPath: control, path: '/stats' }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve(text));
        }).on('error', reject);
      });
      expect(JSON.parse(body)).toHaveProperty('totals');
    } finally {
      await p.close();
    }
  });

  it('is kept, with "address already in use", when something still listens on it', async () => {
    const path = join(dir, 'live.sock');
    const live = net.createServer();
    await new Promise<void>((r) => live.listen(path, r));
    try {
      await expect(started(redis.address, path)).rejects.toThrow(/address already in use/);
      expect(existsSync(path)).toBe(true);
    } finally {
      await new Promise((r) => live.close(r));
    }
  });
});
