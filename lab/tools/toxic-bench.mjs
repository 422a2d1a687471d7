// The latency toxic as redis-benchmark sees it, and redis_error's toxicity as ioredis sees it.
// Alternating rounds in one run: direct to Redis, through the proxy with no toxic, and with a
// downstream latency toxic of 0.1 ms and 1 ms (toxiproxy's default stream: one direction, so the
// round trip grows by the toxic's latency). Prints medians and min-max over the rounds.
//   npm run build && node lab/tools/toxic-bench.mjs [--rounds 5] [--requests 5000] [--error-runs 3]
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startPrivateRedis } from '../../dist/redis/index.js';
import { startSingleNodeProxy } from '../../dist/proxy/index.js';

const run = promisify(execFile);
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, requests: { type: 'string', default: '5000' }, 'error-runs': { type: 'string', default: '3' } } });
const rounds = Number(values.rounds);
const requests = Number(values.requests);
const redis = await startPrivateRedis();
const proxy = await startSingleNodeProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, log: () => undefined });
// A second proxy framing every connection (toxics: []), for Redis-aware toxics added live.
const framed = await startSingleNodeProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, log: () => undefined, toxics: [] });

/**
 * @param {number | undefined} port
 * @returns {Promise<{ p50: number, p99: number }>}
 */
async function bench(port) {
  const { stdout } = await run('redis-benchmark', ['-h', '127.0.0.1', '-p', String(port), '-t', 'get', '-n', String(requests), '-c', '1', '-P', '1', '--csv', '--precision', '3']);
  const row = String(stdout.trim().split('\n').pop()).split(',').map((s) => s.replaceAll('"', ''));
  return { p50: Number(row[4]) * 1000, p99: Number(row[6]) * 1000 }; // microseconds
}

/** @type {[string, number | null][]} */
const cells = [
  ['direct', null],
  ['proxy, no toxic', null],
  ['latency 0.1 ms', 0.1],
  ['latency 1 ms', 1],
];
/** @type {Record<string, { p50: number, p99: number }[]>} */
const results = Object.fromEntries(cells.map(([name]) => [name, []]));
/** @param {string} name */
const resultsOf = (name) => /** @type {{ p50: number, p99: number }[]} */ (results[name]);
for (let r = 0; r < rounds; r++) {
  for (const [name, latency] of cells) {
    if (latency !== null) proxy.addToxic({ type: 'latency', name: 'lat', attributes: { latency } });
    resultsOf(name).push(await bench(name === 'direct' ? redis.port : proxy.port));
    if (latency !== null) proxy.removeToxic('lat');
  }
}
/** @param {number[]} xs */
const med = (xs) => /** @type {number} */ ([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
/** @param {number[]} xs */
const fmt = (xs) => `${med(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`;
console.log(`redis-benchmark -t get -c 1 -P 1 -n ${requests}, ${rounds} alternating rounds; us, median (min-max)`);
console.log('cell                 p50              p99              added p50 vs direct   added p99 vs direct');
for (const [name] of cells) {
  const xs = resultsOf(name);
  const direct = resultsOf('direct');
  const d50 = xs.map((x, i) => x.p50 - /** @type {{ p50: number }} */ (direct[i]).p50);
  const d99 = xs.map((x, i) => x.p99 - /** @type {{ p99: number }} */ (direct[i]).p99);
  console.log(`${name.padEnd(20)} ${fmt(xs.map((x) => x.p50)).padEnd(16)} ${fmt(xs.map((x) => x.p99)).padEnd(16)} ${fmt(d50).padEnd(21)} ${fmt(d99)}`);
}

const c = new Redis({ host: framed.host, port: framed.port, maxRetriesPerRequest: 0 });
await c.set('k', 'v');
for (let i = 0; i < Number(values['error-runs']); i++) {
  framed.addToxic({ type: 'redis_error', name: 'err', toxicity: 0.1, attributes: { commands: ['GET'], error: 'ERR injected' } });
  const p = c.pipeline();
  for (let k = 0; k < 10_000; k++) p.get('k');
  const res = await p.exec();
  if (res === null) throw new Error('the pipeline was discarded');
  const errors = res.filter(([e]) => e).length;
  const wrong = res.filter(([e, v]) => !e && v !== 'v').length;
  const counted = framed.stats().toxics?.find((t) => t.name === 'err')?.applications;
  console.log(`redis_error toxicity 0.1, 10000 GETs: ${errors} errors (${(errors / 100).toFixed(2)}%), counted ${counted}, wrong values ${wrong}`);
  framed.removeToxic('err');
}
c.disconnect();
await proxy.close();
await framed.close();
await redis.stop();
