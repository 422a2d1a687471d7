import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startCliProxy } from '../hardening/helpers/cli-proxy.js';

/**
 * A script that starts `redis-rtt proxy`, waits for its listening line and stops it at once must get
 * the clean close: the summary on stderr and exit 0. The handlers were installed just after the line
 * was written, and a signal sent as soon as the line was read killed the process by Node's default
 * (no summary, no trace closed) in about half the runs on the test VM. Several starts, so the old
 * order cannot pass by luck.
 */
const STARTS = 8;

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

it(`SIGINT or SIGTERM sent as soon as the listening line is read closes the proxy cleanly (${STARTS} starts)`, async () => {
  const outcomes: string[] = [];
  for (let i = 0; i < STARTS; i++) {
    const signal = i % 2 === 0 ? 'SIGINT' : 'SIGTERM';
    const p = await startCliProxy(['--upstream', redis.address, '--listen', '127.0.0.1:0', '--compensate', '0', '--cluster', 'off']);
    const exit = await p.stop(signal);
    const closed = p.stderr().includes(`redis-rtt: ${signal}, closing\n`) && p.stderr().includes('round trips 0');
    outcomes.push(`${signal} code=${exit.code} signal=${exit.signal} summary=${closed}`);
  }
  expect(outcomes).toEqual(Array.from({ length: STARTS }, (_, i) => `${i % 2 === 0 ? 'SIGINT' : 'SIGTERM'} code=0 signal=null summary=true`));
}, 60_000);
