// `await using` closes what it holds at the end of the scope, also on a throw: the private Redis,
// the proxy and `redis-rtt server` (the cluster and Sentinel use the same stop(): their tests run
// one each). A test that forgets a close() cannot leak a server.
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { startPrivateRedis, startProxy, startToxiproxyServer } from '../../src/index.js';

const refused = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect({ host, port });
    s.once('connect', () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(true));
  });

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('disposes the proxy, then the private Redis, when the scope ends by a throw', async () => {
  let pid = 0;
  let at = { host: '', port: 0 };
  let api = '';
  await expect(
    (async () => {
      await using redis = await startPrivateRedis();
      await using proxy = await startProxy({ upstream: redis.address });
      await using server = await startToxiproxyServer({ api: '127.0.0.1:0', log: () => undefined });
      pid = redis.pid;
      at = { host: proxy.host!, port: proxy.port! };
      api = server.api;
      throw new Error('the code under test failed');
    })(),
  ).rejects.toThrow('the code under test failed');
  expect(alive(pid)).toBe(false);
  expect(await refused(at.host, at.port)).toBe(true);
  const [host, port] = api.split(':');
  expect(await refused(host!, Number(port))).toBe(true);
});
