// The ideal-wire reference: a RESP server (a child process) that holds each reply X us by spinning,
// so a client sleeps X with no proxy and no timer, against redis-rtt `proxy --rtt X` in front of a
// real redis-server. The client is redis-py (Debian's, /usr/bin/python3), one connection, GET in a
// loop; per RTT it prints p50 / p90 / p99 of each and the differences (proxy - reference).
// With --idle, the reference also sleeps X/2 before spinning (a server that idles between
// requests, as Redis behind a link does: it pays its wake-up too). Limits: docs/self-report.md.
//   npm run lab:ideal-wire -- [--rtts 0.2,1.2,5,20] [--n 2000] [--idle]
import { fork, spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import net from 'node:net';
import { cliArgv, flag, freePort, waitPort } from './proc.mjs';

const args = process.argv.slice(2);

if (args[0] === '--server') {
  const holdUs = Number(args[1]);
  const idle = args[2] === 'idle';
  net
    .createServer((s) => {
      s.setNoDelay(true);
      s.on('data', (d) => {
        // One client, one small request at a time (a GET fits one read): count the '*' headers.
        const text = d.toString('latin1');
        const replies = (text.startsWith('*') ? 1 : 0) + text.split('\r\n*').length - 1;
        const send = () => {
          const until = process.hrtime.bigint() + BigInt(Math.round(holdUs * 1000));
          while (process.hrtime.bigint() < until);
          s.write('$1\r\nv\r\n'.repeat(Math.max(1, replies)));
        };
        if (idle) setTimeout(send, holdUs / 2000);
        else send();
      });
    })
    .listen(0, '127.0.0.1', /** @this {net.Server} */ function () {
      process.send?.(/** @type {net.AddressInfo} */ (this.address()).port);
    });
} else {
  const rtts = flag(args, '--rtts', '0.2,1.2,5,20').split(',').map(Number);
  const n = Number(flag(args, '--n', '2000'));
  const idle = args.includes('--idle');
  const here = path.resolve(new URL('../..', import.meta.url).pathname);
  const py = `
import redis, sys, time
r = redis.Redis(host='127.0.0.1', port=int(sys.argv[1]))
r.get('k')
out = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter_ns(); r.get('k'); out.append((time.perf_counter_ns() - t) // 1000)
out.sort()
q = lambda p: out[min(len(out) - 1, int(p * len(out)))]
print(q(0.5), q(0.9), q(0.99))
`;
  /** @type {(port: number, count: number) => number[]} p50, p90, p99 in us */
  const client = (port, count) => execFileSync('/usr/bin/python3', ['-c', py, String(port), String(count)], { encoding: 'utf8' }).trim().split(' ').map(Number);
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const kids = [redis];
  try {
    await waitPort(redisPort);
    console.log(`redis-py GET x ${n}, one connection${idle ? ', reference idles X/2 then spins X/2' : ''}; microseconds`);
    console.log('rtt_ms  ref p50/p90/p99        proxy p50/p90/p99      proxy-ref p50/p90/p99');
    for (const rttMs of rtts) {
      const holdUs = rttMs * 1000;
      const ref = fork(new URL(import.meta.url).pathname, ['--server', String(idle ? holdUs / 2 : holdUs), idle ? 'idle' : 'spin']);
      kids.push(ref);
      const refPort = /** @type {number} */ (await new Promise((r) => ref.once('message', r)));
      const proxyPort = await freePort();
      const proxy = spawn('node', [...cliArgv(here), 'proxy', '--upstream', `127.0.0.1:${redisPort}`, '--listen', `127.0.0.1:${proxyPort}`, '--rtt', `${rttMs}ms`], { stdio: 'ignore' });
      kids.push(proxy);
      await waitPort(proxyPort);
      // Alternate halves so drift in machine load hits both alike.
      const half = Math.ceil(n / 2);
      const a1 = client(refPort, half);
      const b1 = client(proxyPort, half);
      const b2 = client(proxyPort, half);
      const a2 = client(refPort, half);
      /** @type {(x: number[], y: number[]) => number[]} */
      const mean2 = (x, y) => x.map((v, i) => Math.round((v + /** @type {number} */ (y[i])) / 2));
      const a = mean2(a1, a2);
      const b = mean2(b1, b2);
      const fmt = (/** @type {number[]} */ x) => x.join('/').padEnd(22);
      console.log(`${String(rttMs).padEnd(7)} ${fmt(a)} ${fmt(b)} ${b.map((v, i) => v - /** @type {number} */ (a[i])).join('/')}`);
      proxy.kill('SIGTERM');
      ref.kill('SIGTERM');
    }
  } finally {
    for (const k of kids) k.kill('SIGTERM');
  }
}
