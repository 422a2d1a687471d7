/**
 * docs/api.md: a ConfigError from startProxy, startSentinelProxy, startToxiproxyServer, runBench,
 * runOpenLoopBench or runCalibrate names the option key the caller wrote. The checks inside name the CLI's flags, and the package passed them on
 * as they were: `highWaterBytes: 10` was refused as `--high-water`, `linkSchedule` as `--link-schedule
 * steps[0].at`, `sentinels` as `--sentinel`, `sizeBytes` as `--size`, `n` as `-n`, none of them a key
 * a library user had typed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, measureHop, runBench, runCalibrate, runOpenLoopBench, startPrivateRedis, startProxy, startSentinelProxy, startToxiproxyServer, ToxicExistsError } from '../../src/index.js';
import type { BenchOptions, CalibrateOptions, OpenLoopOptions, PrivateRedis, ProxyOptions, SentinelProxyOptions, ToxiproxyServerOptions } from '../../src/index.js';
import { startProxy as cliStartProxy } from '../../src/cluster/start-proxy.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const quiet = { log: () => undefined };

async function refusedAs(start: () => Promise<unknown>): Promise<ConfigError> {
  try {
    const p = await start();
    if (typeof p === 'object' && p !== null && 'close' in p) await (p as { close(): Promise<void> }).close();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('started');
}

describe('startProxy names the option key of a bad value', () => {
  const cases: [Partial<ProxyOptions>, string, unknown][] = [
    [{ upstream: 'no such' }, 'upstream', 'no such'],
    [{ listen: 'here' }, 'listen', 'here'],
    [{ control: 'x:y' }, 'control', 'x:y'],
    [{ highWaterBytes: 10 }, 'highWaterBytes', 10],
    [{ maxPendingPerConnection: 0 }, 'maxPendingPerConnection', 0],
    [{ connectTimeoutMs: 0 }, 'connectTimeoutMs', 0],
    [{ warmUpConnections: -1 }, 'warmUpConnections', -1],
    [{ rttWave: 'square' }, 'rttWave', 'square'],
    [{ linkSchedule: { loop: false, steps: [{ rttUs: 1000 }] } }, 'linkSchedule.steps[0].at', undefined],
    [{ rttWave: 'sine:0s:1ms' }, 'rttWave.period', '0s'],
    // A line of the series' text, not a key: it read `rttSeries.line 2`.
    [{ rttSeries: '0,1\n1,x\n' }, 'rttSeries line 2', '1,x'],
    [{ nodeLinks: ['masters=cross-az'] }, 'nodeLinks', 'masters=cross-az'],
    [{ upstreamUser: 'rtt' }, 'upstreamUser', 'rtt'],
    [{ upstreamTls: { ca: '/nonexistent/ca.pem' } }, 'upstreamTls.ca', '/nonexistent/ca.pem'],
    // The union's message named the whole option ("true, false, or an object of ..."), not the key.
    [{ listenTls: { maxVersion: 'TLSv1.1' as never } }, 'listenTls.maxVersion', 'TLSv1.1'],
    // Already a key inside: unchanged.
    [{ link: { rttUs: -1 } }, 'link.rttUs', -1],
    // As addStage()'s argument, `stage` and `stage name`, no key the caller wrote.
    [{ stages: [5 as never] }, 'stages[0]', undefined],
    [{ stages: [{ kind: 'frame', name: 'a', create: () => ({}) }, { kind: 'byte', name: 'a', direction: 'up', create: () => ({}) as never }] }, 'stages[1].name', 'a'],
  ];
  it.each(cases)('%j as %s', async (bad, key, value) => {
    const e = await refusedAs(() => startProxy({ upstream: redis.address, ...quiet, ...bad }));
    expect({ flag: e.flag, value: e.value }).toEqual({ flag: key, value });
    expect(e.message.startsWith(`${key}: `), e.message).toBe(true);
  });

  it('keeps a ConfigError subclass as it is (ToxicExistsError, named by the toxic field)', async () => {
    const toxics = [{ type: 'latency', name: 'a' }, { type: 'latency', name: 'a' }];
    const e = await refusedAs(() => startProxy({ upstream: redis.address, ...quiet, toxics }));
    expect(e).toBeInstanceOf(ToxicExistsError);
    expect(e.flag).toBe('name');
  });

  it('refuses Sentinel options by sending the caller to startSentinelProxy(), a password unshown', async () => {
    // They were refused as keys startProxy() does not know, which said nothing of where they go.
    const cases: [Record<string, unknown>, string][] = [
      [{ sentinels: ['127.0.0.1:26379'], sentinelMaster: 'mymaster' }, 'sentinels'],
      [{ upstream: redis.address, sentinelPassword: 'secret' }, 'sentinelPassword'],
    ];
    for (const [bad, key] of cases) {
      const e = await refusedAs(() => startProxy({ ...quiet, ...bad } as unknown as ProxyOptions));
      expect(e.flag).toBe(key);
      expect(e.message).toMatch(/expected startSentinelProxy\(\) for Sentinel mode/);
      expect(e.message).not.toContain('secret');
    }
  });

  it("leaves the CLI's own start naming its flag", async () => {
    const e = await refusedAs(() => cliStartProxy({ upstream: redis.address, ...quiet, highWaterBytes: 10 }));
    expect(e.flag).toBe('--high-water');
  });
});

describe('startSentinelProxy names the option key of a bad value', () => {
  const base = { sentinels: ['127.0.0.1:1'], sentinelMaster: 'mymaster', ...quiet };
  const cases: [Partial<SentinelProxyOptions> & { upstream?: string }, string][] = [
    [{ sentinels: [] }, 'sentinels'],
    [{ sentinels: ['unix:/tmp/s.sock'] }, 'sentinels'],
    [{ sentinelUser: 'rtt' }, 'sentinelUser'],
    [{ upstream: '127.0.0.1:6379' }, 'upstream'],
    [{ listen: 'unix:/tmp/rtt.sock' }, 'listen'],
  ];
  it.each(cases)('%j as %s', async (bad, key) => {
    const e = await refusedAs(() => startSentinelProxy({ ...base, ...bad } as SentinelProxyOptions));
    expect(e.flag).toBe(key);
  });
});

describe('runBench, runOpenLoopBench and runCalibrate name the option key of a bad value, before anything is spawned', () => {
  const tiny: BenchOptions = { n: 5, repeat: 1, links: ['local'], modes: ['seq'], batches: [1], driverWarmupMs: 0 };
  const bench: [Partial<BenchOptions>, string][] = [
    [{ n: 0 }, 'n'],
    [{ sizeBytes: -1 }, 'sizeBytes'],
    [{ batches: [0] }, 'batches'],
    [{ links: ['moon'] }, 'links'],
    [{ modes: ['sideways' as never] }, 'modes'],
    [{ workload: 'del' as never }, 'workload'],
    [{ workloads: ['del' as never] }, 'workloads'],
    [{ compensation: 'lots' as never }, 'compensation'],
    [{ driverWarmupMs: -1 }, 'driverWarmupMs'],
    [{ maxSeconds: 0 }, 'maxSeconds'],
    [{ keyPrefix: '' }, 'keyPrefix'],
    [{ redis: 'x:y' }, 'redis'],
    // Sent as its digits, or read as true: a JavaScript caller's types, checked.
    [{ password: 1234 as never }, 'password'],
    [{ allowNonempty: 'no' as never }, 'allowNonempty'],
  ];
  it.each(bench)('runBench %j as %s', async (bad, key) => {
    expect((await refusedAs(() => runBench({ ...tiny, ...bad }))).flag).toBe(key);
  });

  // It named bench's flags (--batch-window, --slo, --duration) to a caller who wrote the keys.
  const openLoop: [Partial<OpenLoopOptions>, string][] = [
    [{ clients: [0] }, 'clients'],
    [{ rates: [0] }, 'rates'],
    [{ durationUs: 0 }, 'durationUs'],
    [{ arrival: 'bursty' as never }, 'arrival'],
    [{ batchWindowsUs: [-1] }, 'batchWindowsUs'],
    [{ maxBatch: 0 }, 'maxBatch'],
    [{ modes: ['pipeline' as never] }, 'modes'],
    [{ sloUs: 0 }, 'sloUs'],
    [{ seed: -1 }, 'seed'],
    [{ keyPrefix: '' }, 'keyPrefix'],
    [{ links: ['moon'] }, 'links'],
    [{ redis: 'x:y' }, 'redis'],
    [{ password: 1234 as never }, 'password'],
    [{ allowNonempty: 'no' as never }, 'allowNonempty'],
  ];
  it.each(openLoop)('runOpenLoopBench %j as %s', async (bad, key) => {
    expect((await refusedAs(() => runOpenLoopBench({ links: ['direct'], rates: [100], durationUs: 100_000, ...bad }))).flag).toBe(key);
  });

  const calibrate: [Partial<CalibrateOptions>, string][] = [
    [{ rttsUs: [-1] }, 'rttsUs'],
    [{ samples: 1 }, 'samples'],
    [{ upstream: 'x:y' }, 'upstream'],
    // Made 1 (or 2 for 2.5) without a word, where --rounds 0 exits 2.
    [{ rounds: 0 }, 'rounds'],
    [{ rounds: 2.5 }, 'rounds'],
  ];
  it.each(calibrate)('runCalibrate %j as %s', async (bad, key) => {
    expect((await refusedAs(() => runCalibrate({ rounds: 1, idleCpu: false, ...bad }))).flag).toBe(key);
  });
});

describe('startToxiproxyServer names the option key of a bad value', () => {
  const cases: [ToxiproxyServerOptions, string][] = [
    [{ api: 'x:y' }, 'api'],
    [{ api: '0.0.0.0:0' }, 'api'],
    [{ allowHosts: ['a b'] }, 'allowHosts'],
    [{ config: 'not an array' }, 'config'],
    // The CLI refused an empty --api-token; the library took it and answered every request 401.
    [{ apiToken: '' }, 'apiToken'],
    // Taken, where --seed -1 exits 2.
    [{ seed: -1 }, 'seed'],
    [{ seed: 0.5 }, 'seed'],
    // A JavaScript caller's wrong types were TypeErrors from inside (`.map is not a function`).
    [{ allowHosts: 'toxiproxy' as never }, 'allowHosts'],
    [{ apiToken: 5 as never }, 'apiToken'],
    [{ log: 5 as never }, 'log'],
  ];
  it.each(cases)('%j as %s', async (bad, key) => {
    expect((await refusedAs(() => startToxiproxyServer({ api: '127.0.0.1:0', ...quiet, ...bad }))).flag).toBe(key);
  });
});

describe('the start and run functions given options that are no object', () => {
  // Each is refused before anything starts. Before: null threw a TypeError (runBench's synchronously,
  // not as a rejection), 'x' was refused as its key `0`, startSentinelProxy(5) named the key '', and
  // startProxy(5) a missing upstream.
  it.each<[string, () => Promise<unknown>, string, unknown]>([
    ['runBench(null)', () => runBench(null as never), 'runBench()', null],
    ['startProxy(5)', () => startProxy(5 as never), 'startProxy()', 5],
    ['runCalibrate("x")', () => runCalibrate('x' as never), 'runCalibrate()', 'x'],
    ['startPrivateRedis(null)', () => startPrivateRedis(null as never), 'startPrivateRedis()', null],
    ['startToxiproxyServer([])', () => startToxiproxyServer([] as never), 'startToxiproxyServer()', []],
    ['startSentinelProxy()', () => startSentinelProxy(undefined as never), 'startSentinelProxy()', undefined],
    ['startSentinelProxy(5)', () => startSentinelProxy(5 as never), 'startSentinelProxy()', 5],
    ['measureHop(0)', () => measureHop(0), 'measureHop(samples)', 0],
    ['measureHop(Infinity)', () => measureHop(Infinity), 'measureHop(samples)', Infinity],
  ])('%s is a rejected ConfigError naming the function', async (_, start, flag, value) => {
    let call: Promise<unknown> | undefined;
    expect(() => (call = start())).not.toThrow();
    const e = await call!.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ConfigError);
    expect({ flag: (e as ConfigError).flag, value: (e as ConfigError).value }).toEqual({ flag, value });
  });
});
