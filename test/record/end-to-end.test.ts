/**
 * Real redis-server, real proxy, real clients: record a session on a `local` link, analyse it, and check
 * the projection against the same workload run through a 20 ms link.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { analyzeTrace } from '../../src/record/analyze.js';
import { createRecorder } from '../../src/record/recorder.js';
import { readTrace } from '../../src/record/trace-reader.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.js';
import { loopAndPipelines, loopAndPipelinesProcess, recordSession, redisCli, timeSession } from './session.js';

const RTT_US = 20_000;
const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-e2e-'));
let redis: PrivateRedis;

beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('record on local, project to 20 ms, run at 20 ms', () => {
  it('counts what the proxy counted live, and flags the GET loop', async () => {
    const rec = await recordSession(redis.address, join(dir, 'ioredis.trace'), (p) => loopAndPipelines(p));
    expect(rec.summary.truncated).toBe(false);
    const a = analyzeTrace(rec.trace, { rttsUs: [RTT_US] });
    // 200 GETs one by one, 1 MSET, 5 pipelines of 50 INCRs, QUIT, plus ioredis's own handshake.
    expect(a.totals.connections).toBe(1);
    expect(a.totals.roundTrips).toBeGreaterThanOrEqual(207);
    expect(a.totals.maxDepth).toBe(50);
    const loop = a.opportunities.find((o) => o.command === 'GET');
    expect(loop).toMatchObject({ kind: 'loop', count: 200, roundTripsSaved: 199, multiKey: 'MGET' });
    const live = rec.stats.totals;
    const { commands, replies, roundTrips, flights, maxDepth, depthHistogram } = live;
    expect(a.totals).toMatchObject({ commands, replies, roundTrips, flights, maxDepth, depthHistogram });
  });

  // Besides its own three attempts, the whole test is tried again once: under a loaded CI the three can fall in one burst.
  it('projects the wall time at 20 ms within 10% of the measured one', { retry: 1 }, async () => {
    // The application runs as its own process, as a real one would. Timing on a shared 2-core machine is
    // noisy, so the pair (record, then measure) is tried up to 3 times; any attempt within 10% passes.
    const attempts: string[] = [];
    let best = Infinity;
    for (let attempt = 1; attempt <= 3 && best >= 10; attempt++) {
      const rec = await recordSession(redis.address, join(dir, `app-${attempt}.trace`), (p) => loopAndPipelinesProcess(p));
      const a = analyzeTrace(rec.trace, { rttsUs: [RTT_US] });
      const projectedMs = a.projections[0]!.wallMs;
      const measured = await timeSession(redis.address, RTT_US, (p) => loopAndPipelinesProcess(p));
      const measuredMs = measured.wallMs;
      const errorPct = (100 * (projectedMs - measuredMs)) / measuredMs;
      best = Math.min(best, Math.abs(errorPct));
      // What one GET took through the 20 ms link: far above 20 ms means the machine is overloaded.
      const getP50Ms = (measured.stats.commands.GET?.clientUs.p50 ?? 0) / 1000;
      attempts.push(
        `attempt ${attempt}: recorded ${a.recorded.wallMs.toFixed(1)} ms on local (app saw ${rec.clientWallMs.toFixed(1)} ms), ${a.totals.roundTrips} round trips; ` +
          `projected ${projectedMs.toFixed(1)} ms at 20 ms, measured ${measuredMs.toFixed(1)} ms: ${errorPct >= 0 ? '+' : ''}${errorPct.toFixed(2)}% ` +
          `(GET p50 through the link ${getP50Ms.toFixed(2)} ms)`,
      );
    }
    console.log(`projection check\n${attempts.join('\n')}`);
    expect(best, attempts.join('\n')).toBeLessThan(10);
  });
});

describe('clients recorded end to end', () => {
  it('redis-cli: commands sent one at a time from stdin show up as an N+1 loop', async () => {
    const script = ['SET rtt:cli:0 a', ...Array.from({ length: 50 }, (_, i) => `GET rtt:cli:${i % 5}`), 'INCR rtt:cli:n'].join('\n') + '\n';
    let out = '';
    const rec = await recordSession(
      redis.address,
      join(dir, 'cli.trace'),
      async (p) => {
        out = await redisCli(p, script);
        return 0;
      },
      { keys: 'hashed' },
    );
    expect(out.split('\n').filter((l) => l === 'a')).toHaveLength(10);
    // A long --max-gap: on a loaded machine redis-cli can stall for more than the default between lines.
    const a = analyzeTrace(rec.trace, { rttsUs: [1200, 85_000], maxGapUs: 1_000_000 });
    const loop = a.opportunities.find((o) => o.command === 'GET');
    expect(loop).toMatchObject({ kind: 'loop', count: 50, roundTripsSaved: 49, distinctKeys: 5, multiKey: 'MGET' });
    expect(a.topCommands.find((c) => c.name === 'GET')).toMatchObject({ count: 50, roundTrips: 50 });
  });
});

describe('cursor loops recorded end to end', () => {
  it('redis-py scan_iter over 500 keys: a dependent SCAN loop, never advice to pipeline it', async () => {
    const rec = await recordSession(redis.address, join(dir, 'scan.trace'), async (p) => {
      const py = [
        'import redis, sys',
        'r = redis.Redis(host=sys.argv[1], port=int(sys.argv[2]))',
        'r.mset({f"rtt:scan:{i}": "v" for i in range(500)})',
        'print(sum(1 for _ in r.scan_iter(match="rtt:scan:*", count=10)))',
      ].join('\n');
      const out = await new Promise<string>((resolve, reject) =>
        execFile('/usr/bin/python3', ['-c', py, p.host!, String(p.port)], { timeout: 60_000 }, (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
        ),
      );
      expect(out.trim()).toBe('500');
      return 0;
    });
    const a = analyzeTrace(rec.trace, { rttsUs: [1200] });
    const scans = rec.trace.events.filter((e) => e.type === 'command' && e.name === 'SCAN').length;
    expect(scans).toBeGreaterThan(10);
    const scan = a.opportunities.find((o) => o.command === 'SCAN');
    expect(scan).toMatchObject({ kind: 'dependent', count: scans, roundTripsSaved: 0, savedMs: [{ rttUs: 1200, savedMs: 0 }] });
    expect(scan!.instead).toMatch(/^dependent: cannot be batched/);
    expect(scan!.instead).not.toMatch(/pipeline/);
  });
});

describe('hashed keys are the keys', () => {
  it('EVAL, ZUNION and XREAD hash their first key, not the script or numkeys; PING and PUBLISH hash nothing', async () => {
    const rec = await recordSession(
      redis.address,
      join(dir, 'keys.trace'),
      async (p) => {
        const { Redis } = await import('ioredis');
        const r = new Redis({ host: p.host, port: p.port, lazyConnect: true, retryStrategy: () => null });
        await r.connect();
        for (let i = 0; i < 20; i++) {
          expect(await r.eval("return redis.call('INCR', KEYS[1])", 1, `rtt:hk:${i % 5}`)).toBe(Math.floor(i / 5) + 1);
        }
        expect(await r.eval('return 7', 0)).toBe(7);
        await r.get('rtt:hk:0');
        await r.zadd('rtt:hz', 1, 'm');
        expect(await r.call('ZUNION', '1', 'rtt:hz')).toEqual(['m']);
        await r.xadd('rtt:hs', '*', 'f', 'v');
        expect(await r.xread('COUNT', 1, 'STREAMS', 'rtt:hs', '0')).toHaveLength(1);
        await r.ping();
        await r.publish('rtt:chan', 'x');
        await r.quit();
        return 0;
      },
      { keys: 'hashed' },
    );
    const cmds = rec.trace.events.filter((e) => e.type === 'command');
    const evals = cmds.filter((e) => e.name === 'EVAL');
    expect(evals).toHaveLength(21);
    expect(new Set(evals.slice(0, 20).map((e) => e.keyHash)).size).toBe(5); // the script body would read as 1
    expect(evals[20]!.keyHash).toBeUndefined(); // numkeys 0
    expect(cmds.find((e) => e.name === 'GET')!.keyHash).toBe(evals[0]!.keyHash); // rtt:hk:0 both times
    expect(cmds.find((e) => e.name === 'ZUNION')!.keyHash).toBe(cmds.find((e) => e.name === 'ZADD')!.keyHash);
    expect(cmds.find((e) => e.name === 'XREAD')!.keyHash).toBe(cmds.find((e) => e.name === 'XADD')!.keyHash);
    for (const name of ['PING', 'PUBLISH']) expect(cmds.find((e) => e.name === name)!.keyHash, name).toBeUndefined();
  });
});

describe('what a trace never holds', () => {
  const PASSWORD = `hunter2-${process.pid}-pw`;
  const VALUE = 'secret-value-XYZ';
  const KEY = 'secret-key-name-QQQ';
  let authRedis: PrivateRedis;
  beforeAll(async () => {
    authRedis = await startPrivateRedis({ args: ['--requirepass', PASSWORD] });
  });
  afterAll(() => authRedis?.stop());

  for (const keys of ['none', 'hashed'] as const) {
    it(`no values, credentials or (keys ${keys}) key names`, async () => {
      const path = join(dir, `secrets-${keys}.trace`);
      const rec = await recordSession(
        authRedis.address,
        path,
        async (p) => {
          const { Redis } = await import('ioredis');
          const r = new Redis({ host: p.host, port: p.port, password: PASSWORD, lazyConnect: true, retryStrategy: () => null });
          await r.connect();
          await r.set(KEY, VALUE);
          expect(await r.get(KEY)).toBe(VALUE);
          await r.hset(`${KEY}:h`, 'field-secret-FFF', VALUE);
          await r.call('AUTH', PASSWORD);
          await r.call('CONFIG', 'SET', 'masterauth', PASSWORD);
          await r.call('ACL', 'SETUSER', 'alice-user-AAA', 'on', `>${PASSWORD}`, '~*', '+@all');
          const resp2 = new Redis({ host: p.host, port: p.port, username: 'alice-user-AAA', password: PASSWORD, protocol: 2, lazyConnect: true, retryStrategy: () => null } as never);
          await resp2.connect();
          expect(await resp2.get(KEY)).toBe(VALUE);
          await resp2.quit();
          await r.quit();
          expect(await redisCli(p, `GET ${KEY}\n`, ['-a', PASSWORD, '--no-auth-warning'])).toContain(VALUE);
          // A password typed where a command goes: Redis says "unknown command"; the tap names it "?".
          expect(await redisCli(p, `${PASSWORD}\nPING\n`, ['-a', PASSWORD, '--no-auth-warning'])).toContain('PONG');
          return 0;
        },
        { keys },
      );
      const text = readFileSync(path, 'utf8');
      for (const secret of [PASSWORD, VALUE, KEY, 'field-secret-FFF', 'alice-user-AAA', 'hunter2', 'XYZ', 'QQQ']) {
        expect(text, `trace contains ${secret}`).not.toContain(secret);
      }
      const cmds = rec.trace.events.filter((e) => e.type === 'command');
      const names = new Set(cmds.map((e) => e.name));
      expect(names).toContain('SET');
      expect(names).toContain('AUTH');
      expect(names).toContain('?');
      for (const e of cmds) {
        if (/^(AUTH|HELLO|ACL|CONFIG)/.test(e.name)) {
          expect(e.argSizes, e.name).toBeUndefined();
          expect(e.keyHash, e.name).toBeUndefined();
        }
      }
      const hashes = cmds.filter((e) => e.name === 'SET' || e.name === 'GET').map((e) => e.keyHash);
      if (keys === 'none') expect(hashes.every((h) => h === undefined)).toBe(true);
      else {
        // SET and both GETs (ioredis, the alice connection, redis-cli) name the same key: one hash.
        expect(hashes.length).toBeGreaterThanOrEqual(3);
        expect(new Set(hashes).size).toBe(1);
        expect(hashes[0]).toMatch(/^[0-9a-f]{16}$/);
      }
    });
  }
});

describe('closing the proxy with clients still connected', () => {
  it("records every connection's last events before the end line: a blocked BLPOP and both closes", async () => {
    const path = join(dir, 'close.trace');
    const link = { upUs: 0, downUs: 0, jitterUs: 0, jitterDist: 'uniform' as const, bandwidthBps: 0, lossUp: 0, lossDown: 0, lossBurst: 0, mssBytes: 1448, handshake: true };
    const recorder = createRecorder({ path, link, keys: 'none' });
    const proxy = await startSingleNodeProxy({ upstream: redis.address, argSizes: true, onEvent: (e) => recorder.onEvent(e), log: () => {} });
    const idle = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const blocked = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    for (const c of [idle, blocked]) c.on('error', () => {});
    await Promise.all([idle.connect(), blocked.connect()]);
    await idle.ping();
    const pending = blocked.blpop('e2e:never', 0).catch(() => undefined);
    // BLPOP has reached Redis and blocks there.
    const admin = new Redis({ host: redis.host, port: redis.port });
    await vi.waitUntil(async () => /blocked_clients:1\r/.test(await admin.info('clients')), { timeout: 2000, interval: 5 });
    admin.disconnect();
    await proxy.close();
    const summary = await recorder.close();
    await pending;
    const trace = await readTrace(path);
    expect(summary.dropped).toBe(0);
    expect(trace.end).toMatchObject({ dropped: 0, events: summary.events });
    expect(trace.events.filter((e) => e.type === 'close')).toHaveLength(2);
    expect(trace.events.filter((e) => e.type === 'command').map((e) => e.name)).toContain('BLPOP');
  });
});
