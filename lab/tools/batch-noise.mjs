// How much of a short bench cell is the client's own JIT state: ioredis pipelines of B SETs
// straight to a private redis-server, 10 batches a sample (1000 SETs at B = 100), each batch
// timed on its own, after WARM untimed commands. Run it in fresh processes with a small and a
// large WARM to see what bench's --driver-warmup is for:
//   npm run build && node lab/tools/batch-noise.mjs [--samples 12] [--batch 100] [--warm 0]
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startPrivateRedis } from '../../dist/redis/index.js';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '12' }, batch: { type: 'string', default: '100' }, warm: { type: 'string', default: '0' } } });
const samples = Number(values.samples);
const batch = Number(values.batch);
const warm = Number(values.warm);
const redis = await startPrivateRedis();
const client = new Redis({ host: redis.host, port: redis.port, maxRetriesPerRequest: 0, enableAutoPipelining: false, lazyConnect: true });

async function sample() {
  /** @type {number[]} */
  const us = [];
  const t0 = process.hrtime.bigint();
  for (let b = 0; b < 10; b++) {
    const tb = process.hrtime.bigint();
    const p = client.pipeline();
    for (let i = 0; i < batch; i++) p.set(`noise:${b * batch + i}`, 'v'.repeat(16));
    const res = await p.exec();
    if (res === null || res.some(([err, ok]) => err || ok !== 'OK')) throw new Error('a SET failed');
    us.push(Math.round(Number(process.hrtime.bigint() - tb) / 1000));
  }
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, us };
}

try {
  await client.connect();
  for (let done = 0; done < warm; done += 10 * batch) await sample();
  /** @type {number[]} */
  const ms = [];
  for (let s = 0; s < samples; s++) {
    const r = await sample();
    ms.push(r.ms);
    console.log(`sample ${String(s).padStart(2)}: ${r.ms.toFixed(2).padStart(6)} ms; per batch us: ${r.us.join(' ')}`);
  }
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (/** @type {number} */ i) => /** @type {number} */ (sorted[i]);
  console.log(`after ${warm} warm-up commands: median ${at(Math.floor(sorted.length / 2)).toFixed(2)} ms (${at(0).toFixed(2)}-${at(sorted.length - 1).toFixed(2)}) per ${10 * batch} SETs`);
} finally {
  client.disconnect();
  await redis.stop();
}
