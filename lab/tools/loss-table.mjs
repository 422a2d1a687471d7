// The loss table of docs/method.md "The link model": ioredis GETs of a 100-byte value through this
// tree's proxy with `loss` both ways, at 1.2 ms and 85 ms RTT and 0.1% / 1% / 5%, each GET's round
// trip measured by the client, against what the model predicts (loss-cost.ts). Every reply is
// checked. Connections open and warm before timing, so a lost SYN is not in the figures.
//   npm run build && node lab/tools/loss-table.mjs [--seed 2026] [--scale 1] [--rtts 1.2,85] [--losses 0.1,1,5]
// --scale multiplies the GETs per connection (1.2 ms: 10 connections x 500; 85 ms: 40 x 50); --rtts
// (ms) and --losses (%) pick rows. "2+ RTOs": GETs that paid two resend waits or more.
import { Redis } from 'ioredis';
import { startPrivateRedis, startProxy } from '../../dist/index.js';
import { roundTripLossCost } from '../../dist/link/loss-cost.js';
import { rtoNs } from '../../dist/link/rto.js';
import { flag } from './proc.mjs';

const argv = process.argv.slice(2);
const seed = Number(flag(argv, '--seed', '2026'));
const scale = Number(flag(argv, '--scale', '1'));
const VALUE = 'v'.repeat(100);
const rtts = flag(argv, '--rtts', '1.2,85').split(',').map(Number);
const cases = [
  { rttUs: 1200, conns: 10, gets: 500 * scale },
  { rttUs: 85_000, conns: 40, gets: 50 * scale },
].filter((c) => rtts.includes(c.rttUs / 1000));
const rates = flag(argv, '--losses', '0.1,1,5').split(',').map((p) => Number(p) / 100);

/**
 * @param {number[]} sorted
 * @param {number} q
 */
const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
const ms = (/** @type {number} */ us) => (us >= 100_000 ? (us / 1000).toFixed(1) : (us / 1000).toFixed(2));

const redis = await startPrivateRedis();
try {
  const seedClient = new Redis({ host: redis.host, port: redis.port });
  await seedClient.set('loss:key', VALUE);
  seedClient.disconnect();
  console.log(`load ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}, seed ${seed}`);
  console.log('| RTT | loss | GETs | p50 | p99 | p99.9 | GETs resent | 2+ RTOs |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const c of cases) {
    for (const loss of rates) {
      const proxy = await startProxy({ upstream: redis.address, link: { rttUs: c.rttUs }, seed, log: () => {} });
      const clients = await Promise.all(
        Array.from({ length: c.conns }, async () => {
          const r = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true, maxRetriesPerRequest: null });
          await r.connect();
          if ((await r.get('loss:key')) !== VALUE) throw new Error('wrong reply while warming');
          return r;
        }),
      );
      // Loss on only now: the connections' set-up and first GET are not measured.
      proxy.setLink({ loss });
      /** @type {number[]} */
      const rttUs = [];
      let wrong = 0;
      await Promise.all(
        clients.map(async (r) => {
          for (let i = 0; i < c.gets; i++) {
            const t0 = process.hrtime.bigint();
            const v = await r.get('loss:key');
            rttUs.push(Number(process.hrtime.bigint() - t0) / 1000);
            if (v !== VALUE) wrong++;
          }
        }),
      );
      for (const r of clients) r.disconnect();
      await proxy.close();
      if (wrong > 0) throw new Error(`${wrong} wrong replies at ${c.rttUs} us, loss ${loss}`);
      rttUs.sort((a, b) => a - b);
      const model = roundTripLossCost({ rttUs: c.rttUs, lossUp: loss, lossDown: loss });
      // Any resend costs at least the RTO's 200 ms floor: a GET 100 ms over the RTT paid one.
      const resent = rttUs.filter((us) => us > c.rttUs + 100_000).length / rttUs.length;
      // Two waits or more: both directions lost, or one lost twice (each direction: none 1 - P, one P (1 - P)).
      const rtoUs = rtoNs(c.rttUs * 1000, 0) / 1000;
      const twice = rttUs.filter((us) => us > c.rttUs + 1.5 * rtoUs).length / rttUs.length;
      const twiceModel = 1 - (1 - loss) ** 2 - 2 * (1 - loss) * loss * (1 - loss);
      const cells = [
        `${ms(at(rttUs, 0.5))} / ${ms(model.p50Us)}`,
        `${ms(at(rttUs, 0.99))} / ${ms(model.p99Us)}`,
        `${ms(at(rttUs, 0.999))} / ${ms(model.p999Us)}`,
        `${(resent * 100).toFixed(2)}% / ${(model.slowShare * 100).toFixed(2)}%`,
        `${(twice * 100).toFixed(2)}% / ${(twiceModel * 100).toFixed(2)}%`,
      ];
      console.log(`| ${c.rttUs / 1000} ms | ${loss * 100}% | ${rttUs.length} | ${cells.join(' | ')} |`);
    }
  }
  console.log(`load ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await redis.stop();
}
