/**
 * `redis-rtt proxy --config FILE` whose upstreamTls / listenTls (or compensationUs) are in the file
 * only: every part of the start that looks at TLS (the --compensate calibrate refusal and its pinger,
 * the start-up probe) or at the compensation (the hop-only note) sees the file's, as with the flags.
 * They used to read the flags alone: a file's listenTls let --compensate calibrate measure through
 * plaintext, a file's upstreamTls had calibrate and the probe speak plaintext to a TLS Redis, and a
 * file's compensationUs got the note about --compensate auto.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { generateTlsFiles } from '../../src/redis/tls-certs.js';
import { runCli, startCliProxy } from '../hardening/helpers/cli-proxy.js';
import { configFiles } from '../helpers/config-files.js';

const files = configFiles('redis-rtt-config-tls-start-');
const dir = files.dir;
let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis({ tls: true });
});
afterAll(async () => {
  await redis?.stop();
  files.remove();
});
const file = files.file;

describe("the start uses the file's TLS sides", () => {
  it("refuses --compensate calibrate with the file's listenTls, as with --listen-tls", async () => {
    const path = file({ upstream: redis.address, listenTls: true, cluster: 'off', link: { rttUs: 1000 } });
    const r = await runCli(['proxy', '--config', path, '--compensate', 'calibrate']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--compensate: invalid value "calibrate"; expected .*with --listen-tls/);
    expect(r.stdout).toBe('');
  });

  it("calibrate's pinger and the start-up probe dial the file's upstreamTls (a CA that does not sign Redis: its error, not plaintext's)", async () => {
    // Another CA: the TLS dial fails on the certificate, where a plaintext one would be reset by Redis.
    mkdirSync(join(dir, 'other'));
    const otherCa = generateTlsFiles(join(dir, 'other')).caFile;
    const path = file({ upstream: redis.address, upstreamTls: { ca: otherCa }, cluster: 'off', link: { rttUs: 1000 } });
    const calibrate = await runCli(['proxy', '--config', path, '--compensate', 'calibrate']);
    expect(calibrate.code, calibrate.stderr).toBe(2);
    expect(calibrate.stderr).toMatch(/--compensate: .*pinger failed: self-signed certificate/);

    const p = await startCliProxy(['--config', path, '--compensate', '10us']);
    try {
      await vi.waitFor(() => expect(p.stderr()).toMatch(/warning: upstream \S+ not reachable now: SELF_SIGNED_CERT_IN_CHAIN/), { timeout: 10_000 });
      expect(p.stderr()).not.toContain('did not answer PING like Redis');
    } finally {
      await p.stop();
    }
  });

  it("the hop-only note is for --compensate auto, not for the file's compensationUs", async () => {
    const base = { upstream: redis.address, cluster: 'off', link: { rttUs: 2000 } };
    const note = "--compensate auto takes off the proxy's hop only";
    const withKey = await startCliProxy(['--config', file({ ...base, compensationUs: { up: 10, down: 20 } })]);
    const without = await startCliProxy(['--config', file(base)]);
    try {
      expect((withKey.line as unknown as { compensationUs: unknown }).compensationUs).toEqual({ up: 10, down: 20 });
      expect(withKey.stderr()).not.toContain(note);
      // The note is printed before the listening line, so it is there by now.
      expect(without.stderr()).toContain(note);
    } finally {
      await Promise.all([withKey.stop(), without.stop()]);
    }
  });
});
