import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPreset, PRESET_NAMES } from '../../src/link/presets.js';
import { LinkState } from '../../src/link/link-state.js';
import { parseLinkSpec } from '../../src/link/link-spec.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { ConfigError } from '../../src/errors.js';
import { runCli } from './helpers/cli-proxy.js';
import { controlRequest } from './helpers/http.js';

// Every name a plain object answers to without owning it: `constructor`, `toString`, `__proto__`...
const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype);

/** One PING through the proxy, resolving with the reply (a hung link would time the test out). */
async function ping(port: number): Promise<string> {
  const s = net.connect({ host: '127.0.0.1', port });
  try {
    await new Promise<void>((r, j) => s.once('connect', r).once('error', j));
    s.write('PING\r\n');
    return await new Promise<string>((r) => s.once('data', (d: Buffer) => r(d.toString())));
  } finally {
    s.destroy();
  }
}

describe('Object.prototype names are not presets', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, control: '127.0.0.1:0', link: { rttUs: 400 }, compensationUs: { up: 0, down: 0 }, log: () => undefined });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it('lookups, link specs and LinkState refuse them and keep the real presets', () => {
    expect(PROTO_NAMES.length).toBeGreaterThan(8);
    for (const name of PROTO_NAMES) {
      expect(findPreset(name), name).toBeUndefined();
      expect(() => parseLinkSpec(name), name).toThrow(ConfigError);
      const state = new LinkState({ rttUs: 300 });
      expect(() => state.update({ preset: name }), name).toThrow(ConfigError);
      expect(state.settings.upUs + state.settings.downUs).toBe(300);
    }
    for (const name of PRESET_NAMES) expect(findPreset(name)).toBeDefined();
  });

  it('startSingleNodeProxy rejects them before listening', async () => {
    for (const name of PROTO_NAMES) {
      const start = startSingleNodeProxy({ upstream: redis.address, link: { preset: name }, compensationUs: { up: 0, down: 0 } });
      await expect(start, name).rejects.toThrow(ConfigError);
    }
  });

  it('PUT /link answers 400 and the link (and traffic) stay as they were', async () => {
    const before = proxy.link();
    for (const name of PROTO_NAMES) {
      const r = await controlRequest(proxy.controlAddress!, 'PUT', '/link', { body: JSON.stringify({ preset: name, jitterUs: 5 }) });
      expect(r.status, `${name}: ${r.body}`).toBe(400);
      expect(JSON.parse(r.body).error).toMatch(/preset/);
    }
    // Atomic: a bad field after good ones changes nothing either.
    const bad = await controlRequest(proxy.controlAddress!, 'PUT', '/link', { body: '{"rttUs": 9000, "jitterDist": "nope"}' });
    expect(bad.status).toBe(400);
    expect(proxy.link()).toEqual(before);
    expect(Number.isFinite(proxy.link().upUs)).toBe(true);
    expect(await ping(proxy.port!)).toBe('+PONG\r\n');
  });

  it('bandwidth: capped, and a positive rate that rounds to 0 is refused', async () => {
    for (const bandwidthBps of [0.3, 2e12, -1, Number.NaN]) {
      const r = await controlRequest(proxy.controlAddress!, 'PUT', '/link', { body: JSON.stringify({ bandwidthBps }) });
      expect(r.status, String(bandwidthBps)).toBe(400);
    }
    expect(proxy.link().bandwidthBps).toBe(0);
    const ok = await controlRequest(proxy.controlAddress!, 'PUT', '/link', { body: '{"bandwidthBps": 0.6}' });
    expect(JSON.parse(ok.body).bandwidthBps).toBe(1);
    await controlRequest(proxy.controlAddress!, 'PUT', '/link', { body: '{"bandwidthBps": 0}' });
  });

  it('the CLI exits 2 naming --preset for each of them', async () => {
    const runs = await Promise.all(PROTO_NAMES.map((name) => runCli(['proxy', '--upstream', redis.address, '--preset', name])));
    runs.forEach((run, i) => {
      expect(run.code, `${PROTO_NAMES[i]}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(/--preset/);
    });
    const bw = await runCli(['proxy', '--upstream', redis.address, '--bandwidth', '0.3bit']);
    expect(bw.code, bw.stderr).toBe(2);
    expect(bw.stderr).toMatch(/--bandwidth/);
  });
});
