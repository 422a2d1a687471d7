import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';

/**
 * After close() nothing of the proxy may keep the process alive: not a request still in flight on
 * a slow link or in a toxic, not a partition's end. A test that uses the library, or `await using`,
 * ends when its own work does. Each case runs in a process of its own, which must exit by itself.
 */
const INDEX = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
/** Far longer than a process takes to exit; each case holds something for 20 s. */
const EXIT_WITHIN_MS = 3000;

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const CASES: Record<string, string> = {
  'a request in flight on a 20 s link': `{ link: { rttUs: 40_000_000 } }`,
  'a request held by a 20 s latency toxic': `{ toxics: [{ type: 'latency', stream: 'upstream', attributes: { latency: 20000 } }] }`,
  'a 20 s partition': `{ link: { rttUs: 2000, partition: '20s' } }`,
};

for (const [name, options] of Object.entries(CASES)) {
  it(`closed with ${name}: the process exits at once`, async () => {
    const script = `
      import net from 'node:net';
      import { startProxy } from ${JSON.stringify(INDEX)};
      const proxy = await startProxy({ upstream: ${JSON.stringify(redis.address)}, handshake: false, log: () => {}, ...${options} });
      const s = net.connect(proxy.port, proxy.host);
      s.on('error', () => {});
      await new Promise((r) => s.once('connect', r));
      s.write('PING\\r\\n');
      await new Promise((r) => setTimeout(r, 100));
      await proxy.close();
      process.stdout.write(String(performance.now()));
      process.on('exit', () => process.stdout.write(' ' + String(performance.now())));
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    expect(code, err).toBe(0);
    const [closedMs, exitedMs] = out.trim().split(' ').map(Number) as [number, number];
    expect(exitedMs - closedMs).toBeLessThan(EXIT_WITHIN_MS);
  }, 30_000);
}
