// The RESP tap's CPU per command, no sockets: C connections' taps (as the proxy opens them, one
// stats collector) fed interleaved 16-command GET chunks and their replies, with the deliveries the
// delay lines would report. Each chunk is a fresh Buffer, as a socket read gives.
// `depth` is the commands per chunk; `jitterNs` > 0 spreads the gaps between stamps (a
// deterministic 0..jitterNs extra per step), so latencies differ from command to command as they
// do at -P 1 (with equal gaps every reply shares its latencies and histograms batch them).
//   npm run build && node lab/tools/tap-cost.mjs [connections=50] [rounds=20000] [depth=16] [jitterNs=0]
// DIST=/other/tree/dist measures another build with the same script (one with this tree's Tap API:
// upChunk, upWritten, downChunk, downWritten).
const dist = process.env.DIST ?? '../../dist';
/** @type {typeof import('../../dist/stats/stats-collector.js')} */
const { StatsCollector } = await import(`${dist}/stats/stats-collector.js`);

const conns = Number(process.argv[2] ?? 50);
const rounds = Number(process.argv[3] ?? 20000);
const depth = Number(process.argv[4] ?? 16);
const jitterNs = Number(process.argv[5] ?? 0);
const collector = new StatsCollector();
const taps = Array.from({ length: conns }, (_, i) => collector.openConnection({ client: `127.0.0.1:${1000 + i}` }));
const request = Buffer.from('*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n'.repeat(depth));
const reply = Buffer.from('$3\r\nxxx\r\n'.repeat(depth));
/** @typedef {(typeof taps)[number]} Tap */
/** @type {number[]} bytes each connection's tap has seen, per direction */
const up = new Array(conns).fill(0);
/** @type {number[]} */
const down = new Array(conns).fill(0);
let nowNs = 1e9;
let seed = 12345;
function step() {
  if (jitterNs === 0) return 1000;
  seed = (seed * 1103515245 + 12345) >>> 0;
  return 1000 + (seed % (jitterNs + 1));
}

function round() {
  for (let c = 0; c < conns; c++) {
    const chunk = Buffer.from(request);
    nowNs += step();
    const tap = /** @type {Tap} */ (taps[c]);
    tap.upChunk(chunk, nowNs);
    const upTo = /** @type {number} */ (up[c]) + chunk.length;
    up[c] = upTo;
    tap.upWritten(upTo, nowNs);
  }
  for (let c = 0; c < conns; c++) {
    const chunk = Buffer.from(reply);
    nowNs += step();
    const tap = /** @type {Tap} */ (taps[c]);
    tap.downChunk(chunk, nowNs);
    const downTo = /** @type {number} */ (down[c]) + chunk.length;
    down[c] = downTo;
    tap.downWritten(downTo, nowNs);
  }
}

for (let i = 0; i < 2000; i++) round();
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
for (let i = 0; i < rounds; i++) round();
const wallNs = Number(process.hrtime.bigint() - t0);
const cpu = process.cpuUsage(cpu0);
const commands = rounds * conns * depth;
// Only the totals are read: no link to describe.
const totals = collector.snapshot(/** @type {import('../../dist/link/types.js').LinkSettings} */ ({})).totals;
if (totals.commands !== totals.replies || totals.unparsedBytes !== 0) throw new Error('the tap lost track');
console.log(`${conns} connections x ${depth}${jitterNs > 0 ? `, jitter ${jitterNs} ns` : ''}: ${(wallNs / commands).toFixed(1)} ns per command wall, ${(((cpu.user + cpu.system) * 1000) / commands).toFixed(1)} ns CPU (Buffer copies included)`);
