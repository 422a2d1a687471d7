// What clients report while Redis is down, directly and through this tree's proxy, and how long
// after Redis answers again each one is served (docs/redis-down.md). ioredis reconnects on its own
// (default retryStrategy: 50 ms more per try, at most 2 s); redis-py is retried by a loop
// every 20 ms, as an application would; redis-cli is run once while Redis is down and once after.
// Redis is down 1 s each run; times are from restart()'s readiness poll (every 20 ms).
//   npm run build && node lab/tools/redis-down-clients.mjs [--runs 3]
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { median } from '../../dist/numbers/quantiles.js';
import { startPrivateRedis, startProxy } from '../../dist/index.js';
import { flag } from './proc.mjs';

const run = promisify(execFile);
const runs = Number(flag(process.argv.slice(2), '--runs', '3'));
/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

const PY = `
import redis, sys, time
port = int(sys.argv[1])
first = None
while True:
    try:
        redis.Redis(host='127.0.0.1', port=port, socket_timeout=2, socket_connect_timeout=1).ping()
        print('ok', time.clock_gettime(time.CLOCK_MONOTONIC) * 1000, first, flush=True)
        break
    except Exception as e:
        if first is None:
            first = type(e).__name__ + ': ' + str(e)
        time.sleep(0.02)
`;

/** One redis-cli PING: its output, and when it ended. */
/** @param {number} port */
async function cliPing(port) {
  try {
    const r = await run('redis-cli', ['-p', String(port), 'PING'], { timeout: 5000 });
    return { out: r.stdout.trim(), atMs: nowMs() };
  } catch (err) {
    const e = /** @type {{ stdout?: string, stderr?: string }} */ (err);
    return { out: `${e.stdout ?? ''}${e.stderr ?? ''}`.trim(), atMs: nowMs() };
  }
}

/** @param {string} what */
const step = (what) => process.env.DEBUG && console.error(`${nowMs().toFixed(0)} ${what}`);

/**
 * @param {import('../../dist/index.js').PrivateRedis} redis
 * @param {number} port
 */
async function once(redis, port) {
  const io = new Redis({ port, host: '127.0.0.1' });
  /** @type {string[]} */
  const ioErrors = [];
  io.on('error', (e) => ioErrors.push(e.message));
  await io.ping();
  step('pinged');
  redis.kill('SIGKILL');
  await sleep(300);
  const py = execFile('/usr/bin/python3', ['-c', PY, String(port)], { timeout: 20_000 });
  let pyOut = '';
  const pyExited = new Promise((r) => py.on('exit', r));
  py.stdout?.on('data', (d) => (pyOut += d));
  py.stderr?.on('data', (d) => process.stderr.write(`py: ${d}`));
  const cliDown = await cliPing(port);
  await sleep(700);
  step('restarting');
  await redis.restart();
  step('restarted');
  const upMs = nowMs();
  await new Promise((r) => (io.status === 'ready' ? r(undefined) : io.once('ready', r)));
  const ioMs = nowMs() - upMs;
  step('ioredis ready');
  await pyExited;
  const [, pyAt, ...pyFirst] = pyOut.trim().split(' ');
  const cliUp = await cliPing(port);
  step('cli done');
  io.disconnect();
  // python's monotonic clock is the same CLOCK_MONOTONIC as process.hrtime.
  return { ioMs, pyMs: Number(pyAt) - upMs,  io: ioErrors.find((e) => e !== 'Connection is closed.') ?? ioErrors[0], py: pyFirst.join(' '), cli: cliDown.out, cliAfter: cliUp.out };
}

for (const via of ['direct', 'proxy']) {
  const redis = await startPrivateRedis();
  const proxy = via === 'proxy' ? await startProxy({ upstream: redis.address, link: { rttUs: 1000 }, compensationUs: { up: 0, down: 0 }, log: () => {} }) : undefined;
  const port = Number(proxy ? proxy.port : redis.port);
  /** @type {Awaited<ReturnType<typeof once>>[]} */
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await once(redis, port));
  /** @param {'ioMs' | 'pyMs'} k */
  const m = (k) => `${median(all.map((r) => r[k])).toFixed(0)} (${Math.min(...all.map((r) => r[k])).toFixed(0)}-${Math.max(...all.map((r) => r[k])).toFixed(0)})`;
  console.log(`${via}: served again after Redis answered, ms median (range) of ${runs}: ioredis ${m('ioMs')}, redis-py ${m('pyMs')}`);
  console.log(`  reports: ioredis "${all[0]?.io}"; redis-py "${all[0]?.py}"; redis-cli "${all[0]?.cli}", then "${all[0]?.cliAfter}"`);
  await proxy?.close();
  await redis.stop();
}
