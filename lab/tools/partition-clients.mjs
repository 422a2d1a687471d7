// What ioredis and redis-py do, per client option, when a partition holds their connection
// (docs/partitions.md): one GET sent 100 ms into a partition through this tree's proxy (1 ms RTT),
// and what the client reports, when, and whether it reconnected. Each case is its own partition.
//   npm run build && node lab/tools/partition-clients.mjs [--seconds 3]
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startPrivateRedis, startProxy } from '../../dist/index.js';
import { flag } from './proc.mjs';

const run = promisify(execFile);
const seconds = Number(flag(process.argv.slice(2), '--seconds', '3'));
const redis = await startPrivateRedis();
const proxy = await startProxy({ upstream: redis.address, link: { rttUs: 1000 }, compensationUs: { up: 0, down: 0 }, log: () => {} });
/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const idle = async () => {
  while (proxy.stats().partition?.active) await sleep(20);
  await sleep(200);
};

/**
 * @param {string} name
 * @param {import('ioredis').RedisOptions} options
 * @param {'heal' | 'reset'} then
 */
async function ioredisCase(name, options, then = 'heal') {
  await idle();
  const c = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true, ...options });
  /** @type {string[]} */
  const events = [];
  const t0 = { ns: 0n };
  const at = () => Math.round(Number(process.hrtime.bigint() - t0.ns) / 1e6);
  c.on('error', (e) => events.push(`error "${e.message}" ${at()} ms`));
  c.on('reconnecting', () => events.push(`reconnecting ${at()} ms`));
  c.on('ready', () => t0.ns !== 0n && events.push(`ready ${at()} ms`));
  await c.connect();
  await c.set('k', 'v');
  proxy.setLink({ partition: `${seconds}s`, then });
  await sleep(100);
  t0.ns = process.hrtime.bigint();
  let outcome;
  try {
    const timeout = sleep(seconds * 1000 + 7000).then(() => 'timeout');
    const v = await Promise.race([c.get('k'), timeout]);
    outcome = v === 'timeout' ? `GET neither answered nor failed in ${seconds + 7} s` : `GET "${v}" at ${at()} ms`;
  } catch (e) {
    outcome = `GET failed "${/** @type {Error} */ (e).message}" at ${at()} ms`;
  }
  await idle();
  c.disconnect();
  console.log(`| ioredis | ${name} | ${then} | ${outcome} | ${events.join('; ') || 'none'} |`);
}

/**
 * @param {string} name
 * @param {string} kwargs
 * @param {'heal' | 'reset'} then
 */
async function pyCase(name, kwargs, then = 'heal') {
  await idle();
  const script = `
import redis, time, sys
r = redis.Redis(host='${proxy.host}', port=${proxy.port}${kwargs ? ', ' + kwargs : ''})
r.set('k', 'v')
before = r.client_id()
print('ready', flush=True)
sys.stdin.readline()
time.sleep(0.1)
t = time.monotonic()
try:
    out = 'GET "%s" at %d ms' % (r.get('k').decode(), (time.monotonic() - t) * 1000)
except Exception as e:
    out = 'GET failed %s "%s" at %d ms' % (type(e).__name__, e, (time.monotonic() - t) * 1000)
try:
    after = r.client_id()
    again = 'same connection' if after == before else 'new connection'
except Exception as e:
    again = 'next command failed %s' % type(e).__name__
print(out + ' | ' + again, flush=True)
`;
  const child = execFile('/usr/bin/python3', ['-c', script]);
  let text = '';
  child.stdout?.on('data', (d) => (text += d));
  while (!text.includes('ready')) await sleep(10);
  proxy.setLink({ partition: `${seconds}s`, then });
  child.stdin?.write('\n');
  await new Promise((r) => child.on('exit', r));
  const [outcome, again] = (text.split('\n')[1] ?? '').split(' | ');
  console.log(`| redis-py | ${name} | ${then} | ${outcome} | ${again} |`);
}

console.log(`${seconds} s partitions, 1 ms RTT, GET sent 100 ms in; redis ${(await run('redis-server', ['--version'])).stdout.split(' ')[2]}`);
console.log('| client | options | end | the GET | events / after |');
console.log('|---|---|---|---|---|');
await ioredisCase('defaults', {});
await ioredisCase('commandTimeout: 500', { commandTimeout: 500 });
await ioredisCase('defaults', {}, 'reset');
await ioredisCase('maxRetriesPerRequest: 0', { maxRetriesPerRequest: 0 }, 'reset');
await ioredisCase('autoResendUnfulfilledCommands: false', { autoResendUnfulfilledCommands: false }, 'reset');
await pyCase('defaults', '');
await pyCase('socket_timeout=0.5', 'socket_timeout=0.5');
await pyCase('socket_timeout=0.5, retry_on_timeout=True', 'socket_timeout=0.5, retry_on_timeout=True');
await pyCase('defaults', '', 'reset');
await proxy.close();
await redis.stop();
