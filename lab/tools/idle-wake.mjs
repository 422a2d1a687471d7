// How long a process idle in epoll takes to run after a loopback write wakes it, by how long it was idle:
// the wake the proxy cannot see in a client's or Redis's time (docs/precision.md, "The sixty-fifth and
// sixty-sixth runs"). This process stamps CLOCK_MONOTONIC just before each 8-byte write; a child, idle for
// the gap, reads the stamp against its own clock (the same clock in both processes). Gaps are rotated, and
// under 0.5 ms the writer waits with setImmediate so that it never sleeps itself.
//   node lab/tools/idle-wake.mjs [gaps-ms, comma-separated (0.05,1,5,20)] [wakes per gap (300)]
import { fork } from 'node:child_process';
import net from 'node:net';
import { loadavg } from 'node:os';
import { setImmediate } from 'node:timers';

const gapsMs = (process.argv[2] ?? '0.05,1,5,20').split(',').map(Number);
const wakes = Number(process.argv[3] ?? 300);

if (process.argv[4] === '--child') {
  const s = net.connect(Number(process.argv[5]), '127.0.0.1');
  s.setNoDelay(true);
  s.on('data', (b) => {
    const nowNs = process.hrtime.bigint();
    for (let o = 0; o + 8 <= b.length; o += 8) {
      const w = Buffer.alloc(8);
      w.writeBigUInt64LE(nowNs - b.readBigUInt64LE(o));
      s.write(w);
    }
  });
} else {
  const server = net.createServer();
  await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve())));
  const port = /** @type {net.AddressInfo} */ (server.address()).port;
  const child = fork(new URL(import.meta.url).pathname, [gapsMs.join(','), String(wakes), '--child', String(port)]);
  const sock = /** @type {net.Socket} */ (await new Promise((resolve) => server.once('connection', resolve)));
  sock.setNoDelay(true);
  /** @type {(us: number) => void} */
  let answer = () => undefined;
  let acc = Buffer.alloc(0);
  sock.on('data', (/** @type {Buffer} */ b) => {
    acc = Buffer.concat([acc, b]);
    while (acc.length >= 8) {
      const us = Number(acc.readBigUInt64LE(0)) / 1000;
      acc = acc.subarray(8);
      answer(us);
    }
  });
  const wakeUs = () =>
    /** @type {Promise<number>} */ (
      new Promise((resolve) => {
        answer = resolve;
        const w = Buffer.alloc(8);
        w.writeBigUInt64LE(process.hrtime.bigint());
        sock.write(w);
      })
    );
  /** @param {number} ms */
  const idle = (ms) =>
    ms < 0.5
      ? /** @type {Promise<void>} */ (
          new Promise((resolve) => {
            const end = performance.now() + ms;
            const poll = () => (performance.now() >= end ? resolve() : setImmediate(poll));
            poll();
          })
        )
      : new Promise((resolve) => setTimeout(resolve, ms));
  /** @param {number[]} sorted @param {number} q */
  const at = (sorted, q) => /** @type {number} */ (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
  for (let i = 0; i < 50; i++) {
    await wakeUs();
    await idle(1);
  }
  /** @type {Map<number, number[]>} */
  const byGap = new Map(gapsMs.map((g) => [g, []]));
  for (let i = 0; i < wakes; i++) {
    for (const g of gapsMs) {
      await idle(g);
      byGap.get(g)?.push(await wakeUs());
    }
  }
  console.log(`load ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${wakes} wakes per gap; write to the reader's callback, us`);
  for (const [g, a] of byGap) {
    a.sort((x, y) => x - y);
    const f = (/** @type {number} */ q) => at(a, q).toFixed(1);
    console.log(`idle ${String(g).padStart(5)} ms: p50 ${f(0.5)}  p90 ${f(0.9)}  p99 ${f(0.99)}  max ${at(a, 1).toFixed(1)}`);
  }
  child.kill();
  sock.destroy();
  server.close();
}
