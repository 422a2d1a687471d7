import { expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { findFreePort } from '../../src/redis/free-port.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';

/**
 * An IPv6 sentinel is named in the start's messages as it is typed, `[::1]:PORT`: the bare key
 * `::1:PORT` is no address --sentinel (or the sentinels key) takes back.
 */
it('a given IPv6 sentinel that does not answer is named [::1]:PORT in the error, as typed', async () => {
  // A port nothing listens on: the sentinel there refuses at once.
  const port = await findFreePort('::1');
  const given = `[::1]:${port}`;
  const err: unknown = await startSentinelProxy({ sentinels: [given], sentinelMaster: 'mymaster', listen: '[::1]:0', log: () => {} }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as ConfigError).value).toBe(given);
  expect((err as ConfigError).message).toContain(`expected a sentinel that answers (sentinel ${given}: `);
});
