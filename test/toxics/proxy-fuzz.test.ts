import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { seededUniform } from '../../src/link/rng.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { rawSocket } from '../proxy/helpers.js';

/**
 * Through a real proxy and Redis, a chain of byte toxics (jittered latency both ways, slicer,
 * bandwidth) plus Redis-aware ones (redis_error on err:*, redis_latency on slow:*): random pipelines
 * written at random splits get back exactly the bytes Redis would send, with only the targeted
 * replies replaced, in order.
 */
let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const resp = (...args: (string | Buffer)[]): Buffer =>
  Buffer.concat([Buffer.from(`*${args.length}\r\n`), ...args.flatMap((a) => [Buffer.from(`$${Buffer.byteLength(a)}\r\n`), Buffer.from(a), Buffer.from('\r\n')])]);

describe('a chain of toxics on a live proxy alters nothing it was not asked to', () => {
  for (const seed of [11, 12, 13]) {
    it(`seed ${seed}`, async () => {
      const r = seededUniform(seed);
      const p = await startSingleNodeProxy({
        upstream: redis.address,
        compensationUs: { up: 0, down: 0 },
        log: () => undefined,
        seed,
        toxics: [
          { type: 'latency', stream: 'upstream', attributes: { latency: 0.3, jitter: 0.3 } },
          { type: 'bandwidth', stream: 'upstream', attributes: { rate: 5000 } },
          { type: 'slicer', attributes: { average_size: 7, size_variation: 3, delay: 10 } },
          { type: 'latency', name: 'down', attributes: { latency: 0.2, jitter: 0.2 } },
          { type: 'redis_error', attributes: { keys: 'err:*', error: 'ERR injected' } },
          { type: 'redis_latency', attributes: { commands: ['GET'], keys: 'slow:*', latency: 1 } },
        ],
      });
      try {
        const requests: Buffer[] = [];
        const replies: Buffer[] = [];
        let counter = 0;
        for (let i = 0; i < 300; i++) {
          const x = r();
          if (x < 0.4) {
            const payload = Buffer.alloc(Math.floor(r() * 300));
            for (let k = 0; k < payload.length; k++) payload[k] = Math.floor(r() * 256);
            requests.push(resp('ECHO', payload));
            replies.push(Buffer.concat([Buffer.from(`$${payload.length}\r\n`), payload, Buffer.from('\r\n')]));
          } else if (x < 0.55) {
            requests.push(resp('GET', `err:${i}`));
            replies.push(Buffer.from('-ERR injected\r\n'));
          } else if (x < 0.65) {
            requests.push(resp('GET', `slow:${i}`));
            replies.push(Buffer.from('$-1\r\n'));
          } else if (x < 0.85) {
            requests.push(resp('INCR', `fuzz:${seed}`));
            replies.push(Buffer.from(`:${++counter}\r\n`));
          } else {
            requests.push(resp('SET', `fuzz:k:${i}`, 'v'));
            replies.push(Buffer.from('+OK\r\n'));
          }
        }
        const expected = Buffer.concat(replies);
        const wire = Buffer.concat(requests);
        const s = await rawSocket('127.0.0.1', p.port!);
        const got: Buffer[] = [];
        let gotBytes = 0;
        const done = new Promise<void>((resolve) =>
          s.on('data', (d: Buffer) => {
            got.push(d);
            gotBytes += d.length;
            if (gotBytes >= expected.length) resolve();
          }),
        );
        for (let at = 0; at < wire.length; ) {
          const len = 1 + Math.floor(r() * 400);
          s.write(wire.subarray(at, at + len));
          at += len;
          if (r() < 0.3) await new Promise((res) => setImmediate(res));
        }
        await done;
        expect(Buffer.concat(got).equals(expected)).toBe(true);
        s.destroy();
        const counts = Object.fromEntries(p.stats().toxics!.map((t) => [t.name, t.applications]));
        expect(counts['redis_error_downstream']).toBe(replies.filter((b) => b.toString() === '-ERR injected\r\n').length);
      } finally {
        await p.close();
      }
    });
  }
});
