// What a sleeping client pays to wake up on this machine, with no proxy, no Redis and no timers:
// an echo server in a child process holds each reply for X us by spinning (so it never sleeps), and
// a client in this process ping-pongs with it. RTT - X is the loopback round trip plus the client's
// wake-up after sleeping ~X; its growth with X is what no constant compensation can follow.
//   node lab/tools/wake-cost.mjs [X-us ...]      (default 0 200 1200 5000)
import { fork } from 'node:child_process';
import net from 'node:net';

if (process.argv[2] === '--server') {
  net
    .createServer((s) => {
      s.setNoDelay(true);
      s.on('data', (d) => {
        const until = process.hrtime.bigint() + BigInt(Number(process.argv[3]) * 1000);
        while (process.hrtime.bigint() < until);
        s.write(d);
      });
    })
    .listen(0, '127.0.0.1', /** @this {net.Server} */ function () {
      process.send?.(/** @type {net.AddressInfo} */ (this.address()).port);
    });
} else {
  const holds = process.argv.slice(2).map(Number);
  for (const x of holds.length ? holds : [0, 200, 1200, 5000]) {
    const child = fork(new URL(import.meta.url).pathname, ['--server', String(x)]);
    const port = /** @type {number} */ (await new Promise((r) => child.once('message', r)));
    const n = Math.min(2000, Math.round(3_000_000 / (x + 100)));
    /** @type {number[]} */
    const rtts = await new Promise((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port, noDelay: true });
      /** @type {number[]} */
      const out = [];
      /** @type {bigint} */
      let t0;
      let warm = 50;
      const send = () => ((t0 = process.hrtime.bigint()), s.write('x'));
      s.on('connect', send);
      s.on('data', () => {
        const us = Number(process.hrtime.bigint() - t0) / 1000;
        if (warm > 0) warm--;
        else out.push(us);
        if (out.length >= n) {
          s.destroy();
          resolve(out);
        } else send();
      });
    });
    child.kill();
    rtts.sort((a, b) => a - b);
    const p50 = /** @type {number} */ (rtts[rtts.length >> 1]);
    console.log(`hold ${x} us: rtt p50 ${p50.toFixed(0)} us, minus the hold ${(p50 - x).toFixed(0)} us (${n} samples)`);
  }
}
