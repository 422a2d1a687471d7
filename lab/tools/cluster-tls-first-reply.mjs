// Cluster mode over TLS: time to the first reply on a new connection to a NON-seed node's listener
// (a node the client learned from CLUSTER SLOTS), for plaintext, TLS 1.3 and TLS 1.2 listeners, all
// with TLS to a TLS-only private cluster (--tls-cluster yes). Expected at RTT R as for one node: TCP
// 2R, TLS 1.3 3R, TLS 1.2 4R on top of the 0-delay path. Also ioredis Cluster from `new Cluster()` to
// the first GET reply on a key of another shard (seed connection, CLUSTER SLOTS, a second connection).
// Alternating rounds; medians and min-max in ms.   npm run build first, then:
//   node lab/tools/cluster-tls-first-reply.mjs [rtt-ms=20] [rounds=15]
import net from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { Cluster } from 'ioredis';
import { startPrivateCluster, startProxy } from '../../dist/index.js';

const rttMs = Number(process.argv[2] ?? 20);
const rounds = Number(process.argv[3] ?? 15);
const cluster = await startPrivateCluster({ tls: true });
const upstreamTls = { ca: /** @type {NonNullable<typeof cluster.tls>} */ (cluster.tls).caFile };
const kinds = [
  { name: 'tcp', listenTls: undefined },
  { name: 'tls1.3', listenTls: true },
  { name: 'tls1.2', listenTls: { maxVersion: /** @type {const} */ ('TLSv1.2') } },
];
/** @typedef {import('../../dist/index.js').RedisRttClusterProxy} ClusterProxy */
/** @typedef {{ name: string, rtt: number, p: ClusterProxy, port: number, ca: Buffer | undefined }} Target */
/** @type {Target[]} */
const proxies = [];
for (const k of kinds) {
  for (const rtt of [0, rttMs]) {
    const options = { upstream: cluster.address, cluster: /** @type {const} */ ('on'), upstreamTls, link: { rttUs: rtt * 1000 }, listenTls: k.listenTls, log: () => undefined };
    const p = /** @type {ClusterProxy} */ (await startProxy(options));
    const other = p.nodes().find((n) => n.role === 'master' && n.upstream !== cluster.address);
    if (!other) throw new Error('the cluster proxy shows no master other than the seed');
    proxies.push({ ...k, rtt, p, port: Number(other.listen.split(':')[1]), ca: p.tlsCaFile ? readFileSync(p.tlsCaFile) : undefined });
  }
}
// A key served by a master other than the seed's (the seed holds slots 0-5460).
const key = 'k2';

const now = () => Number(process.hrtime.bigint()) / 1e6;
/**
 * @param {Target} x
 * @returns {Promise<number>}
 */
function node(x) {
  const t0 = now();
  return new Promise((res, rej) => {
    const s = x.ca ? tls.connect({ host: '127.0.0.1', port: x.port, ca: x.ca }) : net.connect({ host: '127.0.0.1', port: x.port });
    s.setNoDelay(true);
    s.once(x.ca ? 'secureConnect' : 'connect', () => s.write('*1\r\n$4\r\nPING\r\n'));
    s.once('data', () => {
      res(now() - t0);
      s.destroy();
    });
    s.once('error', rej);
  });
}
/**
 * @param {Target} x
 * @returns {Promise<number>}
 */
async function io(x) {
  const t0 = now();
  const c = new Cluster([{ host: '127.0.0.1', port: /** @type {number} */ (x.p.port) }], { redisOptions: x.ca ? { tls: { ca: x.ca } } : {} });
  await c.get(key);
  const ms = now() - t0;
  c.disconnect();
  return ms;
}

/** @type {Map<string, number[]>} */
const samples = new Map();
for (let r = 0; r < rounds; r++) {
  for (const x of proxies) {
    for (const [client, f] of /** @type {[string, (x: Target) => Promise<number>][]} */ ([['node', node], ['ioredis', io]])) {
      const k = `${client} ${x.name} ${x.rtt}`;
      samples.set(k, [...(samples.get(k) ?? []), await f(x)]);
    }
  }
}
/** @param {number[]} v */
const med = (v) => /** @type {number} */ ([...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]);
console.log(`client     path    rtt   median (min-max) ms        (median - 0-delay median) / rtt`);
for (const client of ['node', 'ioredis']) {
  for (const k of kinds) {
    const base = med(samples.get(`${client} ${k.name} 0`) ?? []);
    for (const rtt of [0, rttMs]) {
      const v = samples.get(`${client} ${k.name} ${rtt}`) ?? [];
      console.log(
        `${client.padEnd(10)} ${k.name.padEnd(7)} ${String(rtt).padStart(3)}  ${med(v).toFixed(1).padStart(6)} (${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)})`.padEnd(49) +
          (rtt ? `${((med(v) - base) / rtt).toFixed(2)} RTT` : ''),
      );
    }
  }
}
for (const x of proxies) await x.p.close();
await cluster.stop();
