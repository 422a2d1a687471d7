import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { transpileRedisModule } from '../helpers/plain-redis-module.js';

// src/redis as plain JS, so a separate node process can hold private servers and be killed
// without running any cleanup of its own.
let outDir = '';
beforeAll(() => {
  outDir = transpileRedisModule('redis-rtt-watchdog-test-');
  writeFileSync(
    join(outDir, 'hold.mjs'),
    `import { startPrivateRedis } from ${JSON.stringify(join(outDir, 'redis/index.js'))};
const a = await startPrivateRedis({ transport: 'unix', args: ['--requirepass', 'argv-S3CRET'] });
const b = await startPrivateRedis({ transport: 'unix' });
console.log(JSON.stringify([a, b].map((r) => ({ pid: r.pid, dir: r.socketPath.slice(0, r.socketPath.lastIndexOf('/')) }))));
setInterval(() => undefined, 1000);`,
  );
});
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** Dead or a zombie (in a container PID 1 may be slow to reap orphans). */
function gone(pid: number): boolean {
  try {
    return / \S+\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

describe('a private redis-server never outlives the process that started it', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGKILL'] as const)('%s to the holder: no redis-server, no temp dir left', async (signal) => {
    const holder = spawn(process.execPath, [join(outDir, 'hold.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    holder.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await vi.waitUntil(() => out.includes('\n'), { timeout: 15_000, interval: 20 });
    const servers = JSON.parse(out) as { pid: number; dir: string }[];
    try {
      expect(servers).toHaveLength(2);
      for (const s of servers) {
        expect(gone(s.pid)).toBe(false);
        expect(existsSync(s.dir)).toBe(true);
        expect(readFileSync(`/proc/${s.pid}/cmdline`, 'utf8')).not.toContain('argv-S3CRET');
      }
      const conf = join(servers[0]!.dir, 'redis.conf');
      expect(statSync(conf).mode & 0o777).toBe(0o600);
      holder.kill(signal);
      await new Promise<void>((r) => (holder.exitCode !== null || holder.signalCode !== null ? r() : holder.once('exit', () => r())));
      await expect.poll(() => servers.filter((s) => !gone(s.pid) || existsSync(s.dir)), { timeout: 5000, interval: 20 }).toEqual([]);
    } finally {
      for (const s of servers) if (!gone(s.pid)) process.kill(s.pid, 'SIGKILL'); // no orphan when failing
      holder.kill('SIGKILL');
    }
  }, 30_000);
});
