import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { normalizeProxyOptions } from '../../src/proxy/normalize-options.js';
import type { ProxyOptions } from '../../src/proxy/types.js';

function refusal(options: unknown): { flag: string; accepts: string } {
  try {
    normalizeProxyOptions(options as ProxyOptions);
  } catch (err) {
    if (err instanceof ConfigError) return { flag: err.flag, accepts: err.accepts };
    throw err;
  }
  throw new Error('accepted');
}

describe('normalizeProxyOptions', () => {
  it('fills in every default and parses the addresses', () => {
    const log = (): void => undefined;
    const o = normalizeProxyOptions({ upstream: '127.0.0.1:6380', log });
    expect(o).toMatchObject({
      upstream: { kind: 'tcp', host: '127.0.0.1', port: 6380 },
      listen: { kind: 'tcp', host: '127.0.0.1', port: 0 },
      control: undefined,
      handshake: true,
      tap: true,
      highWaterBytes: 4 * 1024 * 1024,
      connectTimeoutMs: 10_000,
      idleTimeoutMs: 0,
      maxConnections: 0,
      argSizes: false,
      log,
    });
    expect(o.compensationUs).toBeUndefined();
    expect(o.toxics).toBeUndefined();
  });

  it('returns the link, compensation and toxics as the proxy uses them', () => {
    const o = normalizeProxyOptions({
      upstream: 'unix:/tmp/r.sock',
      link: { preset: 'cross-az', jitterUs: 10.4 },
      compensationUs: { table: [{ delayUs: 600, compUs: 50 }, { delayUs: 0, compUs: 40 }] },
      toxics: [{ type: 'latency', attributes: { latency: 2 } }, { type: 'redis_error', name: null, attributes: { error: 'ERR x', commands: ['get'] } }],
    });
    expect(o.upstream).toEqual({ kind: 'unix', path: '/tmp/r.sock' });
    expect(o.link).toEqual({ preset: 'cross-az', jitterUs: 10 });
    expect(o.compensationUs).toEqual({ table: [{ delayUs: 0, compUs: 40 }, { delayUs: 600, compUs: 50 }] });
    expect(o.toxics).toEqual([
      { name: 'latency_downstream', type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 2, jitter: 0 } },
      { name: 'redis_error_downstream', type: 'redis_error', stream: 'downstream', toxicity: 1, attributes: { error: 'ERR x', commands: ['GET'], keys: '' } },
    ]);
  });

  it('passes the hooks through untouched', () => {
    const onEvent = (): void => undefined;
    const stages: [] = [];
    const o = normalizeProxyOptions({ upstream: ':6379', onEvent, stages });
    expect(o.onEvent).toBe(onEvent);
    expect(o.stages).toBe(stages);
  });

  it('names the flag or key of every bad option and says what it accepts', () => {
    const up = { upstream: '127.0.0.1:6379' };
    expect(refusal(undefined)).toMatchObject({ flag: 'upstream', accepts: expect.stringMatching(/host:port/) });
    expect(refusal({ upstream: 'no such' })).toMatchObject({ flag: '--upstream' });
    expect(refusal({ ...up, listen: 'here' })).toMatchObject({ flag: '--listen', accepts: expect.stringMatching(/host:port/) });
    expect(refusal({ ...up, control: 'x:y' })).toMatchObject({ flag: '--control' });
    expect(refusal({ ...up, control: '0.0.0.0:0' })).toMatchObject({ flag: '--control', accepts: expect.stringMatching(/allow-host/) });
    expect(refusal({ ...up, highWaterBytes: 10 })).toEqual({ flag: '--high-water', accepts: 'a byte count of at least 1024' });
    expect(refusal({ ...up, maxPendingPerConnection: 0 })).toEqual({ flag: '--max-pending', accepts: 'a whole number of at least 1' });
    expect(refusal({ ...up, maxPendingTotal: 1.5 })).toMatchObject({ flag: '--max-pending-total' });
    expect(refusal({ ...up, idleTimeoutMs: -1 })).toEqual({ flag: '--idle-timeout', accepts: 'a whole number from 0 to 2147483647, 0 for off' });
    expect(refusal({ ...up, maxConnections: 'ten' })).toMatchObject({ flag: '--max-connections' });
    // Not an array: a ConfigError naming the key, not a TypeError from mapping over it.
    expect(refusal({ ...up, toxics: 'latency' })).toEqual({ flag: 'toxics', accepts: 'an array of toxics' });
    expect(refusal({ ...up, toxics: { type: 'latency' } })).toEqual({ flag: 'toxics', accepts: 'an array of toxics' });
    expect(refusal({ ...up, handshake: 'yes' })).toEqual({ flag: 'handshake', accepts: 'true or false' });
    // Sizes are the tap's: with it off they were never collected, without a word.
    expect(refusal({ ...up, tap: false, argSizes: true })).toEqual({ flag: 'argSizes', accepts: 'only with the tap on (tap: false parses no request to size)' });
    expect(refusal({ ...up, link: { rttUs: -1 } })).toEqual({ flag: 'link.rttUs', accepts: 'microseconds from 0 to 3600000000' });
    expect(refusal({ ...up, link: { preset: 'mars' } })).toMatchObject({ flag: 'link.preset', accepts: expect.stringMatching(/cross-az/) });
    expect(refusal({ ...up, link: { bandwidthBps: 0.2 } })).toMatchObject({ flag: 'link.bandwidthBps', accepts: expect.stringMatching(/bits per second/) });
    // `then` says how a partition ends; alone it would start nothing, so it is refused as PUT /link refuses it.
    expect(refusal({ ...up, link: { rttUs: 1000, then: 'reset' } })).toEqual({ flag: 'link.then', accepts: 'then only with partition' });
    expect(refusal({ ...up, link: { partition: '0s' } })).toMatchObject({ flag: 'link.partition', accepts: expect.stringMatching(/above 0/) });
    expect(refusal({ ...up, compensationUs: { up: -1, down: 0 } })).toEqual({ flag: 'compensationUs.up', accepts: 'microseconds, 0 or more' });
    expect(refusal({ ...up, compensationUs: 20 })).toMatchObject({ flag: 'compensationUs', accepts: expect.stringMatching(/up, down/) });
    expect(refusal({ ...up, compensationUs: { up: 1, down: 2, bogus: 3 } })).toEqual({ flag: 'compensationUs.bogus', accepts: 'a key of compensationUs: up and down, or table' });
    expect(refusal({ ...up, upstreamTls: { ca: 5 } })).toMatchObject({ flag: 'upstreamTls.ca' });
    expect(refusal({ ...up, listenTls: { maxVersion: 'TLSv1.1' } })).toMatchObject({ flag: 'listenTls.maxVersion', accepts: 'TLSv1.2 or TLSv1.3' });
    expect(refusal({ ...up, toxics: [{ type: 'latency' }, { type: 'nope' }] })).toMatchObject({ flag: 'type', accepts: expect.stringMatching(/latency/) });
    expect(refusal({ ...up, toxics: [{ type: 'latency', attributes: { latency: '1' } }] })).toMatchObject({ flag: 'attributes.latency' });
    expect(refusal({ ...up, zones: 17 })).toEqual({ flag: '--zones', accepts: 'a whole number from 1 to 16' });
    expect(refusal({ ...up, listenPorts: '9-2' })).toMatchObject({ flag: '--listen-ports', accepts: expect.stringMatching(/A-B/) });
    expect(refusal({ ...up, cluster: 'maybe' })).toEqual({ flag: '--cluster', accepts: 'auto | on | off' });
    // A refresh every microsecond would read the cluster's or the sentinels' state back to back.
    expect(refusal({ ...up, topologyRefreshMs: 0.001 })).toEqual({ flag: 'topologyRefreshMs', accepts: 'milliseconds, at least 10' });
    expect(normalizeProxyOptions({ ...up, topologyRefreshMs: 10 } as ProxyOptions)).toBeDefined();
    // Above Node's timer limit setInterval fires every millisecond: the same back-to-back reads.
    expect(refusal({ ...up, topologyRefreshMs: 2 ** 31 })).toEqual({ flag: 'topologyRefreshMs', accepts: "milliseconds, at most 2147483647 (Node's timer limit)" });
    // A user with no password would be ignored without a word: the discovery would not log in.
    expect(refusal({ ...up, upstreamUser: 'bob' })).toEqual({ flag: '--upstream-user', accepts: expect.stringMatching(/^a password with it/) });
    expect(refusal({ ...up, upstreamUser: '', upstreamPassword: 'pw' })).toEqual({ flag: '--upstream-user', accepts: 'an ACL user name' });
    expect(normalizeProxyOptions({ ...up, upstreamUser: 'bob', upstreamPassword: 'pw' } as ProxyOptions).upstreamUser).toBe('bob');
  });
});
