import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, RedisSpawnError } from '../../src/errors.js';
import { rawCommands, startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { trackedCount } from '../../src/redis/tracked-children.js';

const started: PrivateRedis[] = [];
async function start(opts?: Parameters<typeof startPrivateRedis>[0]): Promise<PrivateRedis> {
  const r = await startPrivateRedis(opts);
  started.push(r);
  return r;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop()));
});

/** A zombie counts as dead: in a container, PID 1 may be slow to reap orphans. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('startPrivateRedis', () => {
  it('serves TCP on 127.0.0.1 without persistence, and stop() removes everything', async () => {
    const r = await start();
    expect(r.address).toBe(`127.0.0.1:${r.port}`);
    expect(r.version).toMatch(/^\d+\.\d+\.\d+/);
    const replies = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: r.port! }, [
      ['PING'],
      ['CONFIG', 'GET', 'save'],
      ['CONFIG', 'GET', 'appendonly'],
    ]);
    expect(replies[0]?.text).toBe('PONG');
    expect(replies[1]?.items?.map((x) => x.text)).toEqual(['save', '']);
    expect(replies[2]?.items?.map((x) => x.text)).toEqual(['appendonly', 'no']);
    expect(r.stderr()).toMatch(/Ready to accept connections/);
    const pid = r.pid;
    expect(alive(pid)).toBe(true);
    await r.stop();
    await r.stop(); // idempotent
    expect(alive(pid)).toBe(false);
    await expect(rawCommands({ kind: 'tcp', host: '127.0.0.1', port: r.port! }, [['PING']])).rejects.toThrow();
  });

  it('serves a unix socket with mode 700 inside its private dir', async () => {
    const r = await start({ transport: 'unix' });
    expect(r.address).toBe(`unix:${r.socketPath}`);
    expect(r.port).toBeUndefined();
    expect(statSync(r.socketPath!).mode & 0o777).toBe(0o700);
    const [pong] = await rawCommands({ kind: 'unix', path: r.socketPath! }, [['PING']]);
    expect(pong?.text).toBe('PONG');
    const dir = dirname(r.socketPath!);
    await r.stop();
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a transport other than tcp or unix, and tls over unix, with a ConfigError naming the option', async () => {
    // 'udp' started a unix-socket Redis, silently.
    await expect(startPrivateRedis({ transport: 'udp' as never })).rejects.toThrow(new ConfigError('transport', 'udp', "'tcp' or 'unix'"));
    await expect(startPrivateRedis({ transport: 'unix', tls: true })).rejects.toMatchObject({ name: 'ConfigError', flag: 'tls', value: true });
    expect(trackedCount()).toBe(0);
  });

  it('refuses args that are not an array of strings, and a tls that is not a boolean or an object, naming the option', async () => {
    // A string was spread one character per argument: a RedisSpawnError (FATAL CONFIG FILE ERROR), not the option.
    for (const args of ['--maxmemory 1mb', [1024], ['--port', null]]) {
      await expect(startPrivateRedis({ args: args as never }), JSON.stringify(args)).rejects.toMatchObject({ name: 'ConfigError', flag: 'args', value: args });
    }
    // 'yes' was taken as true.
    await expect(startPrivateRedis({ tls: 'yes' as never })).rejects.toMatchObject({ name: 'ConfigError', flag: 'tls', value: 'yes' });
    expect(trackedCount()).toBe(0);
  });

  it('says how to install redis-server when the binary is missing', async () => {
    const err = await startPrivateRedis({ serverPath: '/nonexistent/redis-server' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisSpawnError);
    expect((err as Error).message).toMatch(/apt-get install redis-server/);
    expect((err as Error).message).not.toMatch(/\n/);
    expect((err as Error).message).toMatch(/REDIS_SERVER/);
  });

  it('reports an early exit with the server output', async () => {
    const err = await startPrivateRedis({ args: ['--no-such-directive', 'x'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisSpawnError);
    expect((err as Error).message).toMatch(/exited with code 1 before it was ready/);
    expect((err as Error).message).toMatch(/no-such-directive/i);
    expect(trackedCount()).toBe(0);
  });

  it('passes extra args (requirepass) and still detects readiness and version', async () => {
    const r = await start({ args: ['--requirepass', 's3cret'] });
    expect(r.version).toMatch(/^\d+\./);
    const replies = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: r.port! }, [['PING'], ['AUTH', 's3cret'], ['PING']]);
    expect(replies.map((x) => x.text?.split(' ')[0])).toEqual(['NOAUTH', 'OK', 'PONG']);
  });

  it('can be SIGKILLed and restarted on the same port', async () => {
    const r = await start();
    const port = r.port!;
    const firstPid = r.pid;
    r.kill();
    await vi.waitUntil(() => !alive(firstPid), { timeout: 5000, interval: 5 });
    await r.restart();
    expect(r.pid).not.toBe(firstPid);
    const [pong] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port }, [['PING']]);
    expect(pong?.text).toBe('PONG');
  });
});
