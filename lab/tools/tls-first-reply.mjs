// Time to the first PING reply on a new connection through the proxy, for TCP, TLS 1.3 and TLS 1.2
// (client-side TLS, --listen-tls), at one RTT and with no delay. Expected at RTT R: TCP 2R (handshake
// + PING), TLS 1.3 3R, TLS 1.2 4R, on top of what the same path costs with no delay. Two clients:
// redis-cli (a new process per sample, sends nothing before PING) and an in-process Node socket.
// Alternating rounds; prints medians and min-max in ms.   npm run build first, then:
//   node lab/tools/tls-first-reply.mjs [rtt-ms=20] [rounds=15]
import { execFile } from 'node:child_process';
import net from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { startPrivateRedis, startProxy } from '../../dist/index.js';

const rttMs = Number(process.argv[2] ?? 20);
const rounds = Number(process.argv[3] ?? 15);
const redis = await startPrivateRedis();
const kinds = [
  { name: 'tcp', listenTls: undefined },
  { name: 'tls1.3', listenTls: true },
  { name: 'tls1.2', listenTls: { maxVersion: /** @type {const} */ ('TLSv1.2') } },
];
/** @typedef {{ name: string, rtt: number, p: Awaited<ReturnType<typeof startProxy>>, ca: Buffer | undefined }} Target */
/** @type {Target[]} */
const proxies = [];
for (const k of kinds) {
  for (const rtt of [0, rttMs]) {
    const p = await startProxy({ upstream: redis.address, link: { rttUs: rtt * 1000 }, listenTls: k.listenTls, log: () => undefined });
    proxies.push({ ...k, rtt, p, ca: p.tlsCaFile ? readFileSync(p.tlsCaFile) : undefined });
  }
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
/**
 * @param {Target} x
 * @returns {Promise<number>}
 */
function cli(x) {
  const args = x.ca ? ['--tls', '--cacert', String(x.p.tlsCaFile)] : [];
  const t0 = now();
  return new Promise((res, rej) =>
    execFile('redis-cli', [...args, '-p', String(x.p.port), 'PING'], (err, out) => (err || out.trim() !== 'PONG' ? rej(err ?? new Error(out)) : res(now() - t0))),
  );
}
/**
 * @param {Target} x
 * @returns {Promise<number>}
 */
function node(x) {
  const t0 = now();
  return new Promise((res, rej) => {
    const port = /** @type {number} */ (x.p.port);
    const s = x.ca ? tls.connect({ host: '127.0.0.1', port, ca: x.ca }) : net.connect({ host: '127.0.0.1', port });
    s.setNoDelay(true);
    s.once(x.ca ? 'secureConnect' : 'connect', () => s.write('*1\r\n$4\r\nPING\r\n'));
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
  for (const x of proxies) {
    for (const [client, f] of /** @type {[string, (x: Target) => Promise<number>][]} */ ([['redis-cli', cli], ['node', node]])) {
      const key = `${client} ${x.name} ${x.rtt}`;
      samples.set(key, [...(samples.get(key) ?? []), await f(x)]);
    }
  }
}
/** @param {number[]} v */
const med = (v) => /** @type {number} */ ([...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]);
console.log(`client     path    rtt   median (min-max) ms        expected   median - expected`);
for (const client of ['redis-cli', 'node']) {
  for (const k of kinds) {
    const base = med(samples.get(`${client} ${k.name} 0`) ?? []);
    for (const rtt of [0, rttMs]) {
      const v = samples.get(`${client} ${k.name} ${rtt}`) ?? [];
      const expectedMs = /** @type {number} */ (/** @type {Record<string, number>} */ ({ tcp: 2, 'tls1.3': 3, 'tls1.2': 4 })[k.name]) * rtt;
      console.log(
        `${client.padEnd(10)} ${k.name.padEnd(7)} ${String(rtt).padStart(3)}  ${med(v).toFixed(1).padStart(6)} (${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)})`.padEnd(49) +
          (rtt ? `${String(expectedMs).padStart(6)}   ${(med(v) - expectedMs).toFixed(1).padStart(8)}   (0-delay median ${base.toFixed(1)})` : ''),
      );
    }
  }
}
for (const x of proxies) await x.p.close();
await redis.stop();
