import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';

/**
 * Once runBench settles, nothing of it may keep the caller's process alive: its clients' quit()
 * race left a 1 s timer behind, and a client whose connect failed ioredis's 2 s disconnect timer.
 * Each case runs in a process of its own (the built dist/, as a user's), which must exit by itself.
 */
const INDEX = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
/** A process with nothing left exits in milliseconds; the leaks held it 1000 and 2000 ms. */
const EXIT_WITHIN_MS = 600;

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

async function settledToExitMs(redisAddress: string): Promise<{ settled: string; ms: number }> {
  const script = `
    import { runBench } from ${JSON.stringify(INDEX)};
    const options = { redis: ${JSON.stringify(redisAddress)}, links: ['direct', 'local'], modes: ['seq'], batches: [1], n: 20, repeat: 1, warmup: 0, driverWarmupMs: 0 };
    const settled = await runBench(options).then((r) => 'resolved ' + r.results.length, (e) => 'rejected ' + e.name);
    process.stdout.write(settled + ' ' + String(performance.now()));
    process.on('exit', () => process.stdout.write(' ' + String(performance.now())));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(killer);
  expect(code, err).toBe(0);
  const [verb, count, settledMs, exitedMs] = out.trim().split(' ');
  return { settled: `${verb} ${count}`, ms: Number(exitedMs) - Number(settledMs) };
}

it('runBench resolved: the process exits at once', async () => {
  const r = await settledToExitMs(redis.address);
  expect(r.settled).toBe('resolved 2');
  expect(r.ms).toBeLessThan(EXIT_WITHIN_MS);
}, 30_000);

it('runBench rejected (Redis unreachable): the process exits at once', async () => {
  const r = await settledToExitMs('127.0.0.1:1');
  expect(r.settled).toBe('rejected NetworkError');
  expect(r.ms).toBeLessThan(EXIT_WITHIN_MS);
}, 30_000);
