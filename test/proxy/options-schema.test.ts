import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PROXY_CONFIG, readProxyConfig } from '../../src/cli/proxy-config.js';
import { ConfigError } from '../../src/errors.js';
import { configFiles } from '../helpers/config-files.js';
import { proxyOptionsJsonSchema } from '../../src/proxy/options-schema.js';

describe('docs/proxy-options.schema.json', () => {
  it('is what `npm run schema` writes from the options schema now', () => {
    const committed = readFileSync(new URL('../../docs/proxy-options.schema.json', import.meta.url), 'utf8');
    expect(committed, 'run `npm run schema` and commit the result').toBe(`${JSON.stringify(proxyOptionsJsonSchema(PROXY_CONFIG), null, 2)}\n`);
  });

  it('describes the options a config file holds, and none of the hooks', () => {
    expect((proxyOptionsJsonSchema() as { required?: string[] }).required).toEqual(['upstream']);
    // The config file's: --upstream may give the upstream; unknown keys are refused.
    type Schema = { required?: string[]; additionalProperties?: boolean; properties: Record<string, { default?: unknown }> };
    const s = proxyOptionsJsonSchema(PROXY_CONFIG) as Schema;
    expect(s.required).toBeUndefined();
    expect(s.additionalProperties).toBe(false);
    expect(Object.keys(s.properties)).toEqual(expect.arrayContaining(['record', '$schema', 'control', 'controlToken', 'listenTls']));
    expect(s.properties['highWaterBytes']?.default).toBe(4 * 1024 * 1024);
    expect(Object.keys(s.properties)).toEqual(expect.arrayContaining(['link', 'toxics', 'compensationUs', 'upstreamTls', 'zones']));
    for (const hook of ['log', 'onEvent', 'keyHash', 'onLinkChange', 'stages', 'scheduler', 'onNodeLinkChange']) expect(s.properties).not.toHaveProperty(hook);
  });
});

/**
 * The schema an editor checks a config file with says what `--config` takes: each key's good values pass
 * both, its bad ones fail both, the code's error naming the key. It said timeouts of up to Node's timer
 * limit (2147483647 ms) where the file takes an hour, as the flags do, so an editor passed a file the CLI
 * refused; and nothing of linkSchedule, so an editor passed any value there. A key added to the schema
 * needs its cases here. z.fromJSONSchema reads the shipped file as a validator would (its verdicts
 * matched ajv's on these cases).
 */
describe('docs/proxy-options.schema.json and readProxyConfig agree', () => {
  const files = configFiles('redis-rtt-schema-agrees-');
  afterAll(() => files.remove());
  const schemaText = readFileSync(new URL('../../docs/proxy-options.schema.json', import.meta.url), 'utf8');
  const shipped = JSON.parse(schemaText) as { properties: object };
  const editor = z.fromJSONSchema(shipped as never);
  const upstream = '127.0.0.1:6379';

  const good: Record<string, unknown>[] = [
    { upstream, listen: '127.0.0.1:0', control: '127.0.0.1:0', controlToken: 't', allowHosts: ['proxy.local'] },
    { $schema: './node_modules/redis-rtt/docs/proxy-options.schema.json', upstream: 'unix:/tmp/redis.sock', listen: '/tmp/rtt.sock' },
    { upstream, link: { preset: 'cross-az', jitterUs: 100, jitterDist: 'pareto', loss: '1%', lossBurst: 2, mssBytes: 1460, bandwidthBps: 1e6 } },
    { upstream, link: { partition: '10s', then: 'reset', upUs: 5, downUs: 6 } },
    { upstream, rttWave: 'sine:60s:20ms', seed: 0, handshake: false, highWaterBytes: 1024, tap: false, argSizes: true },
    { upstream, linkSchedule: { loop: true, period: '10s', steps: [{ at: '0s', link: { rttUs: 5 } }] } },
    { upstream, rttSeries: '0,1\n1,2\n', rttSeriesOnce: true },
    { upstream, maxPendingPerConnection: 1, maxPendingTotal: 1, idleTimeoutMs: 3_600_000, maxConnections: 0, warmUpConnections: 100_000 },
    { upstream, connectTimeoutMs: 3_600_000, compensationUs: { up: 1, down: 2 } },
    { upstream, compensationUs: { table: [{ delayUs: 0, compUs: 1 }] }, upstreamTls: { insecure: true, servername: 'redis.local' } },
    { upstream, upstreamTls: true, listenTls: { maxVersion: 'TLSv1.2' } },
    { upstream, listenTls: true, toxics: [{ type: 'latency', stream: 'UPSTREAM', toxicity: 0.5, attributes: { latency: 1.5, jitter: 1 } }] },
    { upstream, cluster: 'on', announceHost: 'proxy.local', listenPorts: '7000-7010', zones: 3, clientZones: 2 },
    { upstream, sameZoneLink: 'same-az', crossZoneLink: 'cross-az', nodeLinks: ['replicas=same-az'], topologyRefreshMs: 10 },
    { upstream, upstreamUser: 'rtt', upstreamPassword: '' },
    { sentinels: ['127.0.0.1:26379'], sentinelMaster: 'mymaster', sentinelUser: 'u', sentinelPassword: 'p', sentinelRefreshMs: 10 },
    { upstream, record: { file: 'trace.jsonl', maxBytes: 4000, keys: 'hashed', overwrite: true }, statsJson: 'stats.json' },
  ];
  const bad: [Record<string, unknown>, key: string][] = [
    [{ upstream: 5 }, 'upstream'],
    [{ upstream, listen: 5 }, 'listen'],
    [{ upstream, control: true }, 'control'],
    [{ upstream, controlToken: '' }, 'controlToken'],
    [{ upstream, allowHosts: 'proxy.local' }, 'allowHosts'],
    [{ upstream, link: { rttUs: -1 } }, 'link.rttUs'],
    [{ upstream, link: { lnk: 1 } }, 'link.lnk'],
    [{ upstream, rttWave: 5 }, 'rttWave'],
    [{ upstream, linkSchedule: [{ at: 5, link: { rttUs: 5 } }] }, 'linkSchedule steps[0].at'],
    [{ upstream, linkSchedule: { loop: true, steps: [{ at: '1s', link: { lnk: 5 } }] } }, 'linkSchedule steps[0].link.lnk'],
    [{ upstream, rttSeries: 5 }, 'rttSeries'],
    [{ upstream, rttSeriesOnce: 'yes' }, 'rttSeriesOnce'],
    [{ upstream, seed: -1 }, 'seed'],
    [{ upstream, handshake: 1 }, 'handshake'],
    [{ upstream, highWaterBytes: 1023 }, 'highWaterBytes'],
    [{ upstream, tap: 'no' }, 'tap'],
    [{ upstream, maxPendingPerConnection: 0 }, 'maxPendingPerConnection'],
    [{ upstream, maxPendingTotal: 1.5 }, 'maxPendingTotal'],
    [{ upstream, idleTimeoutMs: 3_600_001 }, 'idleTimeoutMs'],
    [{ upstream, maxConnections: -1 }, 'maxConnections'],
    [{ upstream, warmUpConnections: 100_001 }, 'warmUpConnections'],
    [{ upstream, argSizes: 1 }, 'argSizes'],
    [{ upstream, compensationUs: { up: -1, down: 0 } }, 'compensationUs.up'],
    [{ upstream, connectTimeoutMs: 3_600_001 }, 'connectTimeoutMs'],
    [{ upstream, connectTimeoutMs: 0.5 }, 'connectTimeoutMs'],
    [{ upstream, upstreamTls: { lol: 1 } }, 'upstreamTls.lol'],
    [{ upstream, listenTls: { maxVersion: 'TLSv1.1' } }, 'listenTls.maxVersion'],
    [{ upstream, toxics: [{ type: 'latency', attributes: { latency: '5' } }] }, 'toxics[0].attributes.latency'],
    [{ upstream, cluster: 'ON' }, 'cluster'],
    [{ upstream, announceHost: '' }, 'announceHost'],
    [{ upstream, listenPorts: 7000 }, 'listenPorts'],
    [{ upstream, zones: 17 }, 'zones'],
    [{ upstream, clientZones: '2' }, 'clientZones'],
    [{ upstream, sameZoneLink: 5 }, 'sameZoneLink'],
    [{ upstream, crossZoneLink: 5 }, 'crossZoneLink'],
    [{ upstream, nodeLinks: 'replicas=same-az' }, 'nodeLinks'],
    [{ upstream, upstreamUser: '' }, 'upstreamUser'],
    [{ upstream, upstreamPassword: 5 }, 'upstreamPassword'],
    [{ upstream, topologyRefreshMs: 9 }, 'topologyRefreshMs'],
    [{ upstream, $schema: 5 }, '$schema'],
    [{ sentinels: 'a:1', sentinelMaster: 'm' }, 'sentinels'],
    [{ sentinels: ['a:1'], sentinelMaster: 5 }, 'sentinelMaster'],
    [{ sentinels: ['a:1'], sentinelMaster: 'm', sentinelUser: 5 }, 'sentinelUser'],
    [{ sentinels: ['a:1'], sentinelMaster: 'm', sentinelPassword: 5 }, 'sentinelPassword'],
    [{ sentinels: ['a:1'], sentinelMaster: 'm', sentinelRefreshMs: 9 }, 'sentinelRefreshMs'],
    [{ upstream, record: { file: 'trace.jsonl', maxBytes: 3999 } }, 'record.maxBytes'],
    [{ upstream, statsJson: '' }, 'statsJson'],
    [{ upstream, lnk: {} }, 'lnk'],
  ];

  it('has a good and a bad case for every key the schema lists', () => {
    const keys = Object.keys(shipped.properties);
    const topKey = (path: string): string => /^[^.[ ]+/.exec(path)![0];
    expect(keys.filter((k) => !good.some((c) => k in c))).toEqual([]);
    expect(keys.filter((k) => !bad.some(([, key]) => topKey(key) === k))).toEqual([]);
  });

  it('takes the good ones, both', async () => {
    for (const config of good) {
      expect(editor.safeParse(config).error?.issues, JSON.stringify(config)).toBeUndefined();
      await expect(readProxyConfig(files.file(config)), JSON.stringify(config)).resolves.toBeDefined();
    }
  });

  it('refuses the bad ones, both, the code naming the file and the key', async () => {
    for (const [config, key] of bad) {
      expect(editor.safeParse(config).success, JSON.stringify(config)).toBe(false);
      const path = files.file(config);
      const e = await readProxyConfig(path).then(() => undefined, (err: unknown) => err);
      expect(e, JSON.stringify(config)).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).flag).toBe(`${path}: ${key}`);
    }
  });
});
