import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { startProxy } from '../../src/index.js';
import { parseLinkSpec } from '../../src/link/link-spec.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runBench } from '../../src/workload/bench.js';
import { connectClient } from '../../src/workload/clients.js';
import { buildWorkloadData } from '../../src/workload/keys.js';
import { runSample, type SampleOutcome } from '../../src/workload/sample.js';
import { deriveResults } from '../../src/workload/derive.js';
import { planConfigurations } from '../../src/workload/plan.js';
import { startMitm, type Sabotage } from './helpers/mitm.js';

let redis: PrivateRedis;
let admin: Redis;
beforeAll(async () => {
  redis = await startPrivateRedis();
  admin = new Redis({ host: '127.0.0.1', port: redis.port!, lazyConnect: true, disableClientInfo: true });
  await admin.connect();
});
afterAll(async () => {
  admin.disconnect();
  await redis.stop();
});

describe('a reply stream that lies is caught', () => {
  // seq: a lost reply leaves its command waiting; an extra one matches no command.
  // pipeline: every later reply shifts by one, so the values themselves are wrong.
  const cases: [Sabotage, 'seq' | 'pipeline', string | RegExp][] = [
    ['drop', 'seq', 'command 5 of 20: Command timed out'],
    ['duplicate', 'seq', /^the client reported: Command queue state error.*Last reply: 5/],
    ['drop', 'pipeline', 'command 5 of 20: INCR returned 6, expected 5'],
    ['duplicate', 'pipeline', 'command 6 of 20: INCR returned 5, expected 6'],
  ];
  for (const [sabotage, mode, expected] of cases) {
    it(`fails the INCR check when one reply is ${sabotage === 'drop' ? 'dropped' : 'duplicated'} (${mode})`, async () => {
      await admin.flushdb();
      const mitm = await startMitm(redis.port!, ':5\r\n', sabotage);
      try {
        const report = await runBench({
          links: ['direct'],
          redis: `127.0.0.1:${mitm.port}`,
          workload: 'incr',
          modes: [mode],
          batches: [20],
          n: 20,
          repeat: 2,
          replyTimeoutMs: 300,
          // The timed path's own checks: the client warm-up would meet the sabotage first.
          driverWarmupMs: 0,
        });
        expect(mitm.hits()).toBe(1);
        expect(report.results).toHaveLength(1);
        if (typeof expected === 'string') expect(report.results[0]?.error).toBe(expected);
        else expect(report.results[0]?.error).toMatch(expected);
        // FAILED in the table: no figure in the JSON either, rather than zeros that read as measured.
        const nulls = { medianMs: null, minMs: null, maxMs: null, opsPerSec: null, latencyUs: null, histogram: null, breakdown: null };
        expect(report.results[0]).toMatchObject(nulls);
      } finally {
        await mitm.close();
      }
    });
  }
});

describe('a failed configuration in the results', () => {
  it('has null figures, even when samples finished before it failed; they stay in samplesMs', () => {
    const { configs } = planConfigurations({
      links: [parseLinkSpec('local')], modes: ['seq', 'pipeline'], batches: [10], workloads: ['incr'], n: 100, repeat: 3, warmup: 0,
    });
    const sample: SampleOutcome = { ms: 4, waitsUs: [400], roundTrips: 10, bytesUp: 1, bytesDown: 1, serverMs: 0.5, clientCpuMs: 1 };
    const [seq, pipeline] = deriveResults([
      { config: configs[0]!, samples: [sample, { ...sample, ms: 5 }] },
      { config: configs[1]!, samples: [sample], error: 'command 5 of 100: INCR returned 6, expected 5' },
    ]).results;
    expect(seq).toMatchObject({ mode: 'seq', medianMs: 4.5, repeat: 2 });
    expect(pipeline).toEqual({
      link: 'local', linkRttUs: 0, mode: 'pipeline', workload: 'incr', batch: 10, n: 100, repeat: 1, samplesMs: [4],
      medianMs: null, minMs: null, maxMs: null, opsPerSec: null, waits: 10, roundTrips: null, bytesUp: null, bytesDown: null,
      speedup: null, modelMs: null, modelErrorPct: null, latencyUs: null, histogram: null, breakdown: null,
      error: 'command 5 of 100: INCR returned 6, expected 5',
    });
  });
});

describe('after a failed configuration', () => {
  it('the next one on the same link gets a fresh connection, not the reply the failed one was owed', async () => {
    await admin.flushdb();
    const mitm = await startMitm(redis.port!, ':5\r\n', 'drop');
    try {
      const report = await runBench({ links: ['direct'], redis: `127.0.0.1:${mitm.port}`, workload: 'incr', modes: ['pipeline', 'seq'], batches: [20], n: 20, repeat: 2, replyTimeoutMs: 300, driverWarmupMs: 0 });
      expect(mitm.hits()).toBe(1);
      const byMode = Object.fromEntries(report.results.map((r) => [r.mode, r]));
      expect(byMode.pipeline?.error).toBe('command 5 of 20: INCR returned 6, expected 5');
      expect(byMode.seq?.error).toBeUndefined();
      expect(byMode.seq?.samplesMs).toHaveLength(2);
    } finally {
      await mitm.close();
    }
  });
});

describe('the client warm-up', () => {
  it('a wrong reply during it fails the configurations of that shape; it is not swallowed', async () => {
    await admin.flushdb();
    const mitm = await startMitm(redis.port!, ':5\r\n', 'drop');
    const failed: string[] = [];
    try {
      const report = await runBench(
        { links: ['direct'], redis: `127.0.0.1:${mitm.port}`, workload: 'incr', modes: ['pipeline', 'seq'], batches: [20], n: 20, repeat: 1, replyTimeoutMs: 300 },
        (ev) => {
          if (ev.type === 'failed') failed.push(`${ev.label}: ${ev.error}`);
        },
      );
      expect(mitm.hits()).toBe(1);
      const byMode = Object.fromEntries(report.results.map((r) => [r.mode, r]));
      // Shapes warm up in plan order (pipeline first): only that shape met the dropped reply.
      expect(byMode.pipeline?.error).toBe('client warm-up straight to Redis: command 5 of 20: INCR returned 6, expected 5');
      expect(byMode.seq?.error).toBeUndefined();
      expect(byMode.seq?.samplesMs).toHaveLength(1);
      expect(failed).toEqual(['direct pipeline B=20 incr n=20: client warm-up straight to Redis: command 5 of 20: INCR returned 6, expected 5']);
    } finally {
      await mitm.close();
    }
  });
});

describe('error replies', () => {
  it('names the command that got WRONGTYPE (GET of key 487 turned into a list)', async () => {
    await admin.flushdb();
    const data = buildWorkloadData('get', 1000, 16, 'wt:', 1);
    await admin.mset(data.keys.flatMap((k, i) => [k, data.values[i] as Buffer]));
    await admin.del(data.keys[486] as string);
    await admin.rpush(data.keys[486] as string, 'x');
    const client = await connectClient({ kind: 'tcp', host: '127.0.0.1', port: redis.port! });
    try {
      const config = { index: 0, link: parseLinkSpec('direct'), mode: 'pipeline' as const, workload: 'get' as const, batch: 100, n: 1000, repeat: 1, warmup: 0 };
      await expect(runSample(config, { admin, client, data, luaSha: '' })).rejects.toThrow(
        'command 487 of 1000: WRONGTYPE Operation against a key holding the wrong kind of value',
      );
    } finally {
      await client.close();
    }
  });

  it('fails only the configurations that hit an error; the others go on', async () => {
    await admin.flushdb();
    await admin.rpush('wt2:counter', 'not a counter');
    const report = await runBench({
      links: ['direct'],
      redis: redis.address,
      keyPrefix: 'wt2:',
      allowNonempty: true,
      workloads: ['incr', 'get'],
      modes: ['seq', 'pipeline', 'lua'],
      batches: [8],
      n: 40,
      repeat: 2,
    });
    for (const r of report.results) {
      if (r.workload === 'incr') {
        expect(r.error, r.mode).toMatch(/^client warm-up straight to Redis: command 1 of 40: WRONGTYPE/);
      } else {
        expect(r.error, r.mode).toBeUndefined();
        expect(r.repeat).toBe(2);
      }
    }
    // Not ours to clobber: the list is still there.
    expect(await admin.type('wt2:counter')).toBe('list');
  });
});

describe('a set configuration that fails half-way', () => {
  it('leaves the get configurations of the same run alone (they read keys of their own, not the ones it deleted)', async () => {
    await admin.flushdb();
    // The 6th SET is refused: the set shape fails after its reset deleted its keys and wrote five.
    const proxy = await startProxy({
      upstream: redis.address,
      log: () => undefined,
      toxics: [{ type: 'redis_error', attributes: { commands: ['SET'], keys: 'cf:k:5', error: 'ERR injected' } }],
    });
    try {
      const report = await runBench({
        links: ['direct'],
        redis: `${proxy.host!}:${proxy.port!}`,
        keyPrefix: 'cf:',
        workloads: ['set', 'get'],
        modes: ['seq', 'pipeline'],
        batches: [4],
        n: 12,
        repeat: 1,
        driverWarmupMs: 0,
      });
      const byWorkload = (w: string) => report.results.filter((r) => r.workload === w);
      for (const r of byWorkload('set')) expect(r.error, r.mode).toBe('command 6 of 12: ERR injected');
      for (const r of byWorkload('get')) expect(r.error, r.mode).toBeUndefined();
      expect(byWorkload('get')).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });
});

describe('someone else\'s database', () => {
  it('refuses a non-empty database unless allowed, and then touches only its own keys', async () => {
    await admin.flushdb();
    await admin.set('their:key', 'precious');
    const err = await runBench({ links: ['direct'], redis: redis.address, n: 10, repeat: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/holds 1 key.*--allow-nonempty/s);

    const report = await runBench({ links: ['direct'], redis: redis.address, allowNonempty: true, keyPrefix: 'mine:', workloads: ['set', 'get'], modes: ['seq', 'mset', 'mget'], batches: [5], n: 10, repeat: 1 });
    expect(report.results.every((r) => !r.error)).toBe(true);
    expect(await admin.get('their:key')).toBe('precious');
    expect(await admin.keys('mine:*')).toEqual([]);
    expect(await admin.dbsize()).toBe(1);
  });
});

describe('a --redis that takes the connection and never answers', () => {
  // It waited out the 30 s reply timeout and ended on ioredis's "Command timed out" stack trace.
  it('is refused as not a Redis, naming --redis, after the first reply timeout (5 s at most)', async () => {
    const { createServer } = await import('node:net');
    // It never reads, so it never sees the bench's FIN either: its sockets are destroyed at the end.
    const accepted: import('node:net').Socket[] = [];
    const silent = createServer((s) => void accepted.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = `127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      const run = runBench({ redis: address, links: ['direct'], modes: ['seq'], n: 10, repeat: 1, driverWarmupMs: 0, replyTimeoutMs: 300 });
      await expect(run).rejects.toThrow(ConfigError);
      await expect(run).rejects.toThrow(`--redis: invalid value "${address}"; expected a Redis: it took the connection but did not answer INFO within 0.3 s`);
    } finally {
      for (const s of accepted) s.destroy();
      silent.close();
    }
  });
});
