/**
 * A config file's upstreamPassword (a startProxy() option, so a config key, redacted by
 * --print-config) logs the cluster discovery in, as REDIS_RTT_UPSTREAM_PASSWORD does; the
 * environment wins over it (as REDIS_RTT_SENTINEL_PASSWORD over sentinelPassword). The CLI passed
 * the environment variable alone, undefined when unset, over the file's key: "upstreamUser" with
 * "upstreamPassword" exited 2 asking for a password, and the password alone was never sent (NOAUTH).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startCliProxy } from '../hardening/helpers/cli-proxy.js';
import { configFiles } from '../helpers/config-files.js';

const PASSWORD = 'file-s3cret';
const files = configFiles('redis-rtt-config-password-');
let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis({ args: ['--requirepass', PASSWORD] });
});
afterAll(async () => {
  await redis?.stop();
  files.remove();
});
const file = files.file;

describe("redis-rtt proxy --config with upstreamPassword", () => {
  it('logs the discovery in with the user and password of the file', async () => {
    for (const login of [{ upstreamPassword: PASSWORD }, { upstreamUser: 'default', upstreamPassword: PASSWORD }]) {
      const p = await startCliProxy(['--config', file({ upstream: redis.address, listen: '127.0.0.1:0', ...login })]);
      try {
        // Discovery runs before the listening line: a login that failed is logged by now.
        expect(p.stderr(), JSON.stringify(login)).not.toMatch(/NOAUTH|AUTH failed|cluster discovery/);
      } finally {
        await p.stop();
      }
    }
  });

  it('REDIS_RTT_UPSTREAM_PASSWORD wins over the key', async () => {
    const before = process.env.REDIS_RTT_UPSTREAM_PASSWORD;
    process.env.REDIS_RTT_UPSTREAM_PASSWORD = 'not-the-password';
    try {
      const p = await startCliProxy(['--config', file({ upstream: redis.address, listen: '127.0.0.1:0', upstreamPassword: PASSWORD })]);
      try {
        expect(p.stderr()).toMatch(/cluster discovery at \S+: AUTH failed: WRONGPASS/);
      } finally {
        await p.stop();
      }
    } finally {
      if (before === undefined) delete process.env.REDIS_RTT_UPSTREAM_PASSWORD;
      else process.env.REDIS_RTT_UPSTREAM_PASSWORD = before;
    }
  });
});
