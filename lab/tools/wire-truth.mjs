// What the proxy added, as the wire saw it: redis-benchmark GET -P 1 through this tree's proxy
// (`--down Lms --up 0 --compensate off --no-handshake`) with tcpdump on the loopback, and the same run
// direct. Each request's four crossings are stamped by the kernel: the client's request to the proxy
// (t0), the proxy's to Redis (t1), Redis's reply to the proxy (t2) and the proxy's to the client (t3).
// So per request the proxy's own share is (t1 - t0) + (t3 - t2 - L), counted from the moment the
// bytes reached its socket, which the proxy itself cannot stamp (docs/self-report.md). Printed per
// round beside `self.addedUs` and beside what redis-benchmark saw (its p99 minus the direct run's,
// minus L), and the wire's own view of the same excess (t3 - t0 against the direct run's wire times):
// where the wire and the client part, the time is the client's, outside any proxy. Each round also
// takes the request with the longest time on the wire apart: up, at Redis, down, and when it was its
// connection's first request, how long after the client's SYN the proxy dialed Redis (its accept); and
// the slowest hundredth, as means of the same parts, with the share of it sent in the run's first 100 ms.
// And how far the share moves the p99 on the wire: p99(t3 - t0) less the p99 of the same requests with
// the share and L taken out. That is a difference of two tails, as the client's excess is, where the
// share's own p99 is the tail of a difference; the two part when the share and Redis's time are not
// slow for the same requests.
// Needs tcpdump (Debian's `tcpdump`) and root or CAP_NET_RAW.
//   npm run build && node lab/tools/wire-truth.mjs [--down-ms 5] [--clients 50] [--requests 20000] [--rounds 3]
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, quantile } from '../../dist/numbers/quantiles.js';
import { cliArgv, flag, freePort } from './proc.mjs';

const argv = process.argv.slice(2);
const downMs = Number(flag(argv, '--down-ms', '5'));
const clients = Number(flag(argv, '--clients', '50'));
const requests = Number(flag(argv, '--requests', '20000'));
const rounds = Number(flag(argv, '--rounds', '3'));
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'wire-truth-'));
/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const redisPort = await freePort();
children.push(spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
const proxy = spawn(process.execPath, [...cliArgv(here), 'proxy', '--upstream', `127.0.0.1:${redisPort}`, '--listen', '127.0.0.1:0',
  '--control', '127.0.0.1:0', '--up', '0', '--down', `${downMs}ms`, '--compensate', 'off', '--no-handshake'], { stdio: ['ignore', 'pipe', 'inherit'] });
children.push(proxy);
/** @type {{ listen: string, control: string }} */
const line = await new Promise((r) => proxy.stdout.once('data', (d) => r(JSON.parse(String(d).split('\n')[0] ?? '{}'))));
const proxyPort = Number(line.listen.split(':').pop());

/**
 * redis-benchmark GET's p99 and max in ms (its CSV line).
 * @param {number} port
 * @param {number} n
 */
function bench(port, n) {
  const out = execFileSync('redis-benchmark', ['-h', '127.0.0.1', '-p', String(port), '-t', 'get', '-n', String(n), '-c', String(clients), '-P', '1', '--csv'], { encoding: 'utf8' });
  const f = (out.trim().split('\n').pop() ?? '').split(',').map((s) => Number(s.replaceAll('"', '')));
  return { p99: f[6] ?? NaN, max: f[7] ?? NaN };
}

/**
 * Runs fn with tcpdump capturing the ports' TCP payloads; returns fn's result and the pcap's path.
 * @template T
 * @param {number[]} ports
 * @param {() => T} fn
 */
async function captured(ports, fn) {
  const file = path.join(dir, `c${Date.now()}.pcap`);
  const tcpdump = spawn('tcpdump', ['-i', 'lo', '-nn', '-s', '96', '-B', '65536', '-w', file, `tcp and (${ports.map((p) => `port ${p}`).join(' or ')})`], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(tcpdump);
  let err = '';
  tcpdump.stderr.on('data', (d) => (err += String(d)));
  await new Promise((r, j) => {
    tcpdump.stderr.on('data', () => err.includes('listening on') && r(undefined));
    tcpdump.once('exit', () => j(new Error(`tcpdump: ${err}`)));
  });
  const result = fn();
  await new Promise((r) => setTimeout(r, 200));
  const exited = new Promise((r) => tcpdump.once('exit', r));
  tcpdump.kill('SIGINT');
  await exited;
  const dropped = Number(/(\d+) packets? dropped by kernel/.exec(err)?.[1] ?? 0);
  return { result, file, dropped };
}

/**
 * Payload-carrying TCP segments of a pcap (Ethernet framing, as tcpdump writes the loopback).
 * @param {string} file
 * @returns {{ tUs: number, src: number, dst: number, len: number, syn: boolean }[]}
 */
function segments(file) {
  const b = readFileSync(file);
  const nano = b.readUInt32LE(0) === 0xa1b23c4d;
  const out = [];
  for (let o = 24; o + 16 <= b.length; ) {
    const tUs = b.readUInt32LE(o) * 1e6 + b.readUInt32LE(o + 4) / (nano ? 1000 : 1);
    const incl = b.readUInt32LE(o + 8);
    const p = o + 16;
    o = p + incl;
    if (b.readUInt16BE(p + 12) !== 0x0800) continue;
    const ihl = (b.readUInt8(p + 14) & 15) * 4;
    const total = b.readUInt16BE(p + 16);
    const tcp = p + 14 + ihl;
    const len = total - ihl - (b.readUInt8(tcp + 12) >> 4) * 4;
    const syn = (b.readUInt8(tcp + 13) & 0x12) === 0x02; // a SYN without ACK: the connection's opening
    if (len > 0 || syn) out.push({ tUs, src: b.readUInt16BE(tcp), dst: b.readUInt16BE(tcp + 2), len, syn });
  }
  return out;
}

/**
 * Per connection (keyed by its far port from `server`), the times of the segments to and from `server`.
 * @param {ReturnType<typeof segments>} segs
 * @param {number} server
 */
function byConnection(segs, server) {
  /** @type {Map<number, { synUs: number, to: number[], from: number[] }>} */
  const m = new Map();
  for (const s of segs) {
    const far = s.dst === server ? s.src : s.src === server ? s.dst : -1;
    if (far < 0) continue;
    let c = m.get(far);
    if (!c) m.set(far, (c = { synUs: Infinity, to: [], from: [] }));
    if (s.syn) c.synUs = s.tUs;
    else (s.dst === server ? c.to : c.from).push(s.tUs);
  }
  return m;
}

/**
 * Pairs each client connection with the upstream connection the proxy dialed for it: the proxy
 * dials in its accept callback, so the n-th client connection to open is served by the n-th
 * upstream connection to open.
 * @param {Map<number, { synUs: number, to: number[], from: number[] }>} client
 * @param {Map<number, { synUs: number, to: number[], from: number[] }>} upstream
 */
function pair(client, upstream) {
  const order = (/** @type {typeof client} */ m) => [...m].filter(([, v]) => v.synUs !== Infinity).sort((a, b) => a[1].synUs - b[1].synUs).map(([k]) => k);
  const cs = order(client);
  const us = order(upstream);
  /** @type {Map<number, number>} */
  const pairs = new Map();
  for (let i = 0; i < Math.min(cs.length, us.length); i++) pairs.set(/** @type {number} */ (cs[i]), /** @type {number} */ (us[i]));
  return pairs;
}

const at = (/** @type {number[]} */ xs, /** @type {number} */ k) => xs[k] ?? NaN;
/** The start of a run, where its connections' set-up falls. */
const EARLY_US = 100_000;
const p99 = (/** @type {number[]} */ xs) => quantile(xs, 0.99);
const ms = (/** @type {number} */ us) => (us / 1000).toFixed(3);

bench(proxyPort, requests); // warm-up, unrecorded
bench(redisPort, requests);
/** @type {Record<string, number>[]} */
const rows = [];
for (let r = 0; r < rounds; r++) {
  const load = (os.loadavg()[0] ?? 0).toFixed(2);
  const direct = await captured([redisPort], () => bench(redisPort, requests));
  const directWire = [];
  for (const c of byConnection(segments(direct.file), redisPort).values()) {
    for (let k = 0; k < Math.min(c.to.length, c.from.length); k++) directWire.push(at(c.from, k) - at(c.to, k));
  }
  await globalThis.fetch(`http://${line.control}/reset`, { method: 'POST' });
  const proxied = await captured([redisPort, proxyPort], () => bench(proxyPort, requests));
  const self = /** @type {{ self: { addedUs: { p99: number }, roundTripAddedUs?: { p50: number, p99: number }, lateUs: { p99: number } } }} */ (await (await globalThis.fetch(`http://${line.control}/stats`)).json()).self;
  const segs = segments(proxied.file);
  const client = byConnection(segs, proxyPort);
  const upstream = byConnection(segs, redisPort);
  const pairs = pair(client, upstream);
  const wire = [];
  /** The same requests' time on the wire with the proxy's share (and L) taken out. */
  const unproxied = [];
  const added = [];
  const up = [];
  const down = [];
  const atRedis = [];
  /** When each request reached the proxy (its client's segment), for where in the run the tail falls. */
  const sentUs = [];
  // The request with the longest time on the wire, in parts: where a maximum was spent.
  let worst = { wireUs: -Infinity, upUs: NaN, redisUs: NaN, downUs: NaN, k: -1, afterOpenUs: NaN, dialUs: NaN, firstUpUs: NaN };
  for (const [c, u] of pairs) {
    const cv = client.get(c);
    const uv = upstream.get(u);
    if (!cv || !uv) continue;
    const n = Math.min(cv.to.length, cv.from.length, uv.to.length, uv.from.length);
    for (let k = 0; k < n; k++) {
      const upUs = at(uv.to, k) - at(cv.to, k);
      const downUs = at(cv.from, k) - at(uv.from, k) - downMs * 1000;
      up.push(upUs);
      down.push(downUs);
      added.push(upUs + downUs);
      atRedis.push(at(uv.from, k) - at(uv.to, k));
      sentUs.push(at(cv.to, k));
      const wireUs = at(cv.from, k) - at(cv.to, k);
      wire.push(wireUs);
      unproxied.push(wireUs - upUs - downUs - downMs * 1000);
      if (wireUs > worst.wireUs) {
        const redisUs = at(uv.from, k) - at(uv.to, k);
        worst = { wireUs, upUs, redisUs, downUs, k, afterOpenUs: at(cv.to, k) - cv.synUs, dialUs: uv.synUs - cv.synUs, firstUpUs: at(uv.to, 0) - uv.synUs };
      }
    }
  }
  // The slowest hundredth on the wire, in parts (means): where a p99 is spent.
  const tailFromUs = p99(wire);
  const tail = { n: 0, upUs: 0, redisUs: 0, downUs: 0, early: 0 };
  const startUs = Math.min(...sentUs);
  for (let i = 0; i < wire.length; i++) {
    if ((wire[i] ?? 0) < tailFromUs) continue;
    tail.n++;
    tail.upUs += up[i] ?? 0;
    tail.redisUs += atRedis[i] ?? 0;
    tail.downUs += down[i] ?? 0;
    if ((sentUs[i] ?? 0) - startUs < EARLY_US) tail.early++;
  }
  const clientExcessUs = (proxied.result.p99 - direct.result.p99 - downMs) * 1000;
  const wireExcessUs = p99(wire) - p99(directWire) - downMs * 1000;
  const x = {
    clientExcessUs,
    wireExcessUs,
    addedUs: p99(added),
    // How far the share moves the p99 of these round trips: a difference of two tails, like the client's
    // excess, where p99(added) is the tail of the share itself.
    shiftUs: p99(wire) - p99(unproxied) - downMs * 1000,
    upUs: p99(up),
    downUs: p99(down),
    upP50Us: quantile(up, 0.5),
    downP50Us: quantile(down, 0.5),
    addedP50Us: quantile(added, 0.5),
    selfRoundTripP50Us: self.roundTripAddedUs?.p50 ?? NaN,
    downP1Us: quantile(down, 0.01),
    redisUs: p99(atRedis),
    directUs: p99(directWire),
    selfUs: self.addedUs.p99,
    selfRoundTripUs: self.roundTripAddedUs?.p99 ?? NaN,
    lateUs: self.lateUs.p99,
    n: added.length,
    pairs: pairs.size,
    dropped: direct.dropped + proxied.dropped,
    clientMaxUs: (proxied.result.max - downMs) * 1000,
    wireMaxUs: worst.wireUs - downMs * 1000,
    worstUpUs: worst.upUs,
    worstRedisUs: worst.redisUs,
    worstDownUs: worst.downUs,
    worstK: worst.k,
    worstAfterOpenUs: worst.afterOpenUs,
    worstDialUs: worst.dialUs,
    worstFirstUpUs: worst.firstUpUs,
    tailUpUs: tail.upUs / tail.n,
    tailRedisUs: tail.redisUs / tail.n,
    tailDownUs: tail.downUs / tail.n,
    tailEarlyShare: tail.early / tail.n,
    upMaxUs: Math.max(...up),
    downMaxUs: Math.max(...down),
  };
  rows.push(x);
  console.log(
    `round ${r + 1} (load ${load}): client p99 excess ${ms(x.clientExcessUs)}, wire ${ms(x.wireExcessUs)}; ` +
      `proxy's share on the wire p99 ${ms(x.addedUs)}, moving the wire's p99 by ${ms(x.shiftUs)} (up ${ms(x.upUs)}, down ${ms(x.downUs)}); p50 ${ms(x.addedP50Us)} (up ${ms(x.upP50Us)}, down ${ms(x.downP50Us)}); down p1 ${ms(x.downP1Us)}; ` +
      `self.addedUs p99 ${ms(x.selfUs)}, roundTripAddedUs p99 ${ms(x.selfRoundTripUs)} (p50 ${ms(x.selfRoundTripP50Us)}), lateUs p99 ${ms(x.lateUs)}; ` +
      `Redis's time on the wire p99 ${ms(x.redisUs)} through the proxy, ${ms(x.directUs)} direct; ` +
      `${x.n} requests over ${x.pairs} connections, ${x.dropped} packets dropped`,
  );
  console.log(
    `  the slowest 1% on the wire, mean: up ${ms(x.tailUpUs)}, at Redis ${ms(x.tailRedisUs)}, down ${ms(x.tailDownUs)} (L off); ` +
      `${(100 * x.tailEarlyShare).toFixed(0)}% of them sent in the run's first ${EARLY_US / 1000} ms`,
  );
  console.log(
    `  max less L: client ${ms(x.clientMaxUs)}, wire ${ms(x.wireMaxUs)} (up ${ms(x.worstUpUs)}, at Redis ${ms(x.worstRedisUs)}, ` +
      `down ${ms(x.worstDownUs)}; the connection's request ${x.worstK + 1}, ${ms(x.worstAfterOpenUs)} after it opened; the proxy dialed Redis ${ms(x.worstDialUs)} after the client's SYN and wrote to it ${ms(x.worstFirstUpUs)} after the dial); proxy's share on the wire max up ${ms(x.upMaxUs)}, down ${ms(x.downMaxUs)}`,
  );
}
const col = (/** @type {string} */ k) => {
  const xs = rows.map((x) => x[k] ?? NaN);
  return `${ms(median(xs))} (${ms(Math.min(...xs))}..${ms(Math.max(...xs))})`;
};
console.log(`\nL = ${downMs} ms, ${clients} clients, ${requests} requests, ${rounds} rounds, median (range), ms:`);
console.log(`client p99 excess ${col('clientExcessUs')}; wire p99 excess ${col('wireExcessUs')}`);
console.log(`Redis's time on the wire (request in to reply out), p99 ${col('redisUs')} through the proxy, ${col('directUs')} direct`);
console.log(`proxy's share on the wire, p99 ${col('addedUs')}, moving the wire's p99 by ${col('shiftUs')} (up ${col('upUs')}, down ${col('downUs')}); self.addedUs p99 ${col('selfUs')}, roundTripAddedUs p99 ${col('selfRoundTripUs')}`);
console.log(`max less L: client ${col('clientMaxUs')}, wire ${col('wireMaxUs')}; the proxy's share on the wire, max up ${col('upMaxUs')}, down ${col('downMaxUs')}`);
process.exit(0);
