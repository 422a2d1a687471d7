// Time to the first PING reply on a new connection through the proxy to a TLS-only Redis
// (--upstream-tls, plaintext clients), beside the same proxy to a plaintext Redis and a direct TLS
// client to the TLS Redis, at no delay and at one RTT. The proxy dials Redis when it accepts the
// client, so the TLS handshake with Redis runs while the client's SYN/SYN-ACK and its PING cross
// the link: at RTT R both proxies' rows should read 2R plus their 0-delay cost. At no delay the
// difference between them is what the upstream handshake adds. Also prints each proxy's PING
// serverUs p50 (the first command on each connection). Alternating rounds; medians and min-max in ms.
//   npm run build first, then:  node lab/tools/upstream-tls-first-reply.mjs [rtt-ms=20] [rounds=15]
// REDIS_RTT_DIST=/path/to/dist runs another build (e.g. an older commit's) for a before/after.
import { execFile } from 'node:child_process';
import net from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';

/** @type {typeof import('../../dist/index.js')} */
const api = await import(process.env.REDIS_RTT_DIST ? `${process.env.REDIS_RTT_DIST}/index.js` : '../../dist/index.js');
const rttMs = Number(process.argv[2] ?? 20);
const rounds = Number(process.argv[3] ?? 15);
const [tlsRedis, plainRedis] = await Promise.all([api.startPrivateRedis({ tls: true }), api.startPrivateRedis()]);
const caFile = /** @type {string} */ (tlsRedis.tls?.caFile);
const ca = readFileSync(caFile);

/** @typedef {{ name: string, rtt: number, port: number, secure: boolean, proxy?: Awaited<ReturnType<typeof api.startProxy>> }} Target */
/** @type {Target[]} */
const targets = [{ name: 'direct TLS', rtt: 0, port: /** @type {number} */ (tlsRedis.port), secure: true }];
for (const rtt of [0, rttMs]) {
  for (const [name, upstream, upstreamTls] of /** @type {const} */ ([
    ['proxy, TLS up', tlsRedis.address, { ca: caFile }],
    ['proxy, plain up', plainRedis.address, undefined],
  ])) {
    const proxy = await api.startProxy({ upstream, upstreamTls, cluster: 'off', link: { rttUs: rtt * 1000 }, log: () => undefined });
    targets.push({ name, rtt, port: /** @type {number} */ (proxy.port), secure: false, proxy });
  }
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
/**
 * @param {Target} x
 * @returns {Promise<number>}
 */
function cli(x) {
  const args = x.secure ? ['--tls', '--cacert', caFile] : [];
  const t0 = now();
  return new Promise((res, rej) =>
    execFile('redis-cli', [...args, '-p', String(x.port), 'PING'], (err, out) => (err || out.trim() !== 'PONG' ? rej(err ?? new Error(out)) : res(now() - t0))),
  );
}
/**
 * @param {Target} x
 * @returns {Promise<number>}
 */
function node(x) {
  const t0 = now();
  return new Promise((res, rej) => {
    const s = x.secure ? tls.connect({ host: '127.0.0.1', port: x.port, ca }) : net.connect({ host: '127.0.0.1', port: x.port });
    s.setNoDelay(true);
    s.once(x.secure ? 'secureConnect' : 'connect', () => s.write('*1\r\n$4\r\nPING\r\n'));
    s.once('data', () => {
      res(now() - t0);
      s.destroy();
    });
    s.once('error', rej);
  });
}

/** @type {Map<string, number[]>} */
const samples = new Map();
for (let r = 0; r < rounds; r++) {
  for (const x of targets) {
    for (const [client, f] of /** @type {[string, (x: Target) => Promise<number>][]} */ ([['redis-cli', cli], ['node', node]])) {
      const key = `${client}|${x.name}|${x.rtt}`;
      samples.set(key, [...(samples.get(key) ?? []), await f(x)]);
    }
  }
}
/** @param {number[]} v */
const med = (v) => /** @type {number} */ ([...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]);
console.log('client     path              rtt   median (min-max) ms    PING serverUs p50');
for (const client of ['redis-cli', 'node']) {
  for (const x of targets) {
    const v = samples.get(`${client}|${x.name}|${x.rtt}`) ?? [];
    const server = x.proxy?.stats().commands.PING?.serverUs.p50;
    const line = `${client.padEnd(10)} ${x.name.padEnd(16)} ${String(x.rtt).padStart(4)}  ${med(v).toFixed(2).padStart(7)} (${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)})`;
    console.log(line.padEnd(58) + (server === undefined ? '' : `${(server / 1000).toFixed(2)} ms`));
  }
}
for (const x of targets) await x.proxy?.close();
await Promise.all([tlsRedis.stop(), plainRedis.stop()]);
