import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import type { StatsSnapshot } from '../../src/stats/types.js';
import { controlRequest } from '../hardening/helpers/http.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
}, 30_000);
afterAll(async () => {
  await redis?.stop();
});

/** The family names of a /metrics text, in order. */
const families = (text: string): string[] => [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!);

/** Every number in a snapshot, however deep. */
const numbersOf = (v: unknown): number[] =>
  typeof v === 'number' ? [v] : typeof v === 'object' && v !== null ? Object.values(v).flatMap(numbersOf) : [];

const zeroLoss = { segments: 0, lost: 0, retransmitted: 0, retransmitNs: 0 };

describe('POST /reset keeps every block /stats and /metrics had, zeroed', () => {
  it('loss (after the link lost its loss), tls, toxics, self, timeline, partition: all there, the counts 0', async () => {
    const proxy = (await startProxy({
      upstream: redis.address,
      compensationUs: { up: 0, down: 0 },
      control: '127.0.0.1:0',
      log: () => {},
      listenTls: true,
      link: { rttUs: 200, lossUp: 0.3 },
      seed: 5,
      rttWave: 'sine:10s:50us',
      toxics: [{ type: 'latency', attributes: { latency: 0 } }],
    })) as RedisRttProxy;
    const at = proxy.controlAddress!;
    const client = new Redis({ host: proxy.host, port: proxy.port, tls: { ca: readFileSync(proxy.tlsCaFile!) }, lazyConnect: true });
    try {
      await client.connect();
      for (let i = 0; i < 4; i++) expect(await client.set(`k${i}`, 'v')).toBe('OK');
      expect((await controlRequest(at, 'PUT', '/link', { body: JSON.stringify({ partition: '1ms' }) })).status).toBe(200);
      // The loss is taken off: what it counted stays until the reset.
      expect((await controlRequest(at, 'PUT', '/link', { body: JSON.stringify({ lossUp: 0 }) })).status).toBe(200);
      expect(await client.get('k1')).toBe('v');
      const before = JSON.parse((await controlRequest(at, 'GET', '/stats')).body) as StatsSnapshot;
      const metricsBefore = (await controlRequest(at, 'GET', '/metrics')).body;
      expect(before.loss?.up.lost).toBeGreaterThan(0);
      expect(before.toxics?.[0]?.applications).toBe(1);

      expect((await controlRequest(at, 'POST', '/reset')).status).toBe(200);
      const after = JSON.parse((await controlRequest(at, 'GET', '/stats')).body) as StatsSnapshot;
      const metricsAfter = (await controlRequest(at, 'GET', '/metrics')).body;
      // `loss` and its five families went with the reset, until loss came back.
      expect(Object.keys(after)).toEqual(Object.keys(before));
      expect(families(metricsAfter)).toEqual(families(metricsBefore));
      expect(after.loss).toEqual({ up: zeroLoss, down: zeroLoss });
      expect(metricsAfter).toContain('redis_rtt_loss_lost_total{direction="up"} 0\n');
      // A toxic's applications were not zeroed: a count "since the reset" read the old connections.
      expect(after.toxics).toEqual([{ name: 'latency_downstream', type: 'latency', stream: 'downstream', applications: 0 }]);
      expect(metricsAfter).toContain('redis_rtt_toxic_applications_total{toxic="latency_downstream",type="latency",stream="downstream"} 0\n');
      expect(Object.values(after.tls!)).toEqual(Object.values(after.tls!).map(() => 0));
      expect(after.self?.addedUs.count).toBe(0);
      expect(after.totals.commands).toBe(0);
      expect(after.partition?.active).toBe(false);
      expect(after.timeline?.wave).toEqual(before.timeline?.wave);
    } finally {
      client.disconnect();
      await proxy.close();
    }
  });

  // toxics: [] frames every connection: the frame chain's sequencer matches the replies there.
  it.each([['unframed', undefined], ['framed', []]])('a reset while 50 clients pipeline (%s): once they are idle, commands == replies, by name too, none negative or NaN', async (_, toxics) => {
    const options = { upstream: redis.address, compensationUs: { up: 0, down: 0 }, link: { rttUs: 400 }, toxics, log: () => {} };
    const proxy = (await startProxy(options)) as RedisRttProxy;
    const clients = Array.from({ length: 50 }, () => new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true }));
    try {
      await Promise.all(clients.map((c) => c.connect()));
      let reset = false;
      const run = async (c: Redis, i: number): Promise<void> => {
        for (let round = 0; round < 8; round++) {
          if (!reset && i === 0 && round === 4) {
            proxy.resetStats();
            reset = true;
          }
          const replies = await c.pipeline().set(`k${i}`, round).get(`k${i}`).incr(`n${i}`).exec();
          expect(replies?.every(([err]) => err === null)).toBe(true);
        }
      };
      await Promise.all(clients.map(run));
      expect(reset).toBe(true);
      const s = proxy.stats();
      // It had more replies than commands: the requests in flight at the reset were not counted.
      expect(s.totals.commands).toBe(s.totals.replies);
      expect(s.totals.commands).toBeGreaterThan(0);
      for (const [name, c] of Object.entries(s.commands)) expect([name, c.count]).toEqual([name, c.clientUs.count]);
      expect(numbersOf(s).filter((n) => !(Number.isFinite(n) && n >= 0))).toEqual([]);
    } finally {
      for (const c of clients) c.disconnect();
      await proxy.close();
    }
  });
});

describe('--no-tap: the traffic it does not measure is not exported as 0', () => {
  it('/metrics leaves out the counted families and keeps connections and the link; /stats says countsOff', async () => {
    const proxy = (await startProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, control: '127.0.0.1:0', tap: false, log: () => {} })) as RedisRttProxy;
    const at = proxy.controlAddress!;
    const client = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true });
    try {
      await client.connect();
      for (let i = 0; i < 3; i++) expect(await client.set(`nt${i}`, 'v')).toBe('OK');
      const stats = JSON.parse((await controlRequest(at, 'GET', '/stats')).body) as StatsSnapshot;
      expect(stats.countsOff).toBe(true);
      const text = (await controlRequest(at, 'GET', '/metrics')).body;
      const names = families(text);
      for (const counted of ['bytes_total', 'commands_total', 'replies_total', 'round_trips_total', 'command_latency_seconds']) {
        expect(names).not.toContain(`redis_rtt_${counted}`);
      }
      expect(names).toEqual(expect.arrayContaining(['redis_rtt_connections_active', 'redis_rtt_connections_total', 'redis_rtt_link_up_delay_seconds']));
      expect(text).toMatch(/^redis_rtt_connections_active 1$/m);
    } finally {
      client.disconnect();
      await proxy.close();
    }
  });
});
