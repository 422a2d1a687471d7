// The proxy's own cost per command, cluster mode (frame chain + rewrite stage on every connection)
// against single-node mode (bytes only), same node, same key, no delay, no compensation. Alternating
// rounds in one run; prints the median and range of the per-GET time and of the pipelined cost.
//   npm run build && node lab/tools/cluster-cost.mjs [rounds=7] [ops=2000]
import { Redis } from 'ioredis';
import { startPrivateCluster, startProxy } from '../../dist/index.js';

const rounds = Number(process.argv[2] ?? 7);
const ops = Number(process.argv[3] ?? 2000);
const cluster = await startPrivateCluster({});
const seed = /** @type {import('../../dist/index.js').PrivateClusterNode} */ (cluster.nodes[0]);
const common = { upstream: seed.address, compensationUs: { up: 0, down: 0 }, handshake: false, log: () => {} };
const single = await startProxy({ ...common, cluster: 'off' });
const clustered = await startProxy({ ...common, cluster: 'on' });
// A key the seed serves, so both modes answer it on the same node with no redirect.
const probe = new Redis(seed.port, '127.0.0.1');
let key = '';
const mine = String(await probe.call('CLUSTER', 'MYID'));
/** @typedef {[number, number, [string, number, Buffer | string]]} SlotRange start, end, primary (host, port, id) */
const slots = /** @type {SlotRange[]} */ (await probe.call('CLUSTER', 'SLOTS'));
const range = slots.find((r) => r[2][2].toString() === mine);
if (!range) throw new Error('CLUSTER SLOTS names no range of the seed');
for (let i = 0; !key; i++) {
  const s = Number(await probe.call('CLUSTER', 'KEYSLOT', `k${i}`));
  if (s >= range[0] && s <= range[1]) key = `k${i}`;
}
await probe.set(key, 'v');
probe.disconnect();

const targets = { direct: { host: '127.0.0.1', port: seed.port }, single: single, cluster: clustered };
/** @type {(t: { host?: string, port?: number }) => Redis} */
const connect = (t) => new Redis(/** @type {number} */ (t.port), /** @type {string} */ (t.host));
const clients = Object.fromEntries(Object.entries(targets).map(([name, t]) => [name, connect(t)]));
/** @type {Record<string, number[]>} */
const seq = Object.fromEntries(Object.keys(targets).map((n) => [n, []]));
/** @type {Record<string, number[]>} */
const pipe = Object.fromEntries(Object.keys(targets).map((n) => [n, []]));
for (let r = 0; r < rounds + 1; r++) {
  for (const [name, c] of Object.entries(clients)) {
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < ops; i++) await c.get(key);
    const seqUs = Number(process.hrtime.bigint() - t0) / 1000 / ops;
    t0 = process.hrtime.bigint();
    for (let b = 0; b < ops / 100; b++) {
      const p = c.pipeline();
      for (let i = 0; i < 100; i++) p.get(key);
      await p.exec();
    }
    const pipeUs = Number(process.hrtime.bigint() - t0) / 1000 / ops;
    if (r > 0) {
      seq[name]?.push(seqUs);
      pipe[name]?.push(pipeUs);
    }
  }
}
/** @param {number[]} xs */
const med = (xs) => /** @type {number} */ ([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
/** @param {number[]} xs */
const fmt = (xs) => `${med(xs).toFixed(1)} us (${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})`;
console.log(`GET, ${rounds} alternating rounds of ${ops}; median (min-max) per command`);
for (const name of Object.keys(targets)) console.log(`${name.padEnd(8)} sequential ${fmt(seq[name] ?? [])}   pipelined x100 ${fmt(pipe[name] ?? [])}`);
for (const c of Object.values(clients)) c.disconnect();
await Promise.all([single.close(), clustered.close()]);
await cluster.stop();
