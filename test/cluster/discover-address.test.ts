import { expect, it } from 'vitest';
import { discoverCluster } from '../../src/cluster/discover.js';
import { findFreePort } from '../../src/redis/free-port.js';

/** It said "cluster discovery at ::1:6379 failed", an address no flag reads back; the start said [::1]:6379. */
it('names an IPv6 upstream in brackets, as every other address is written', async () => {
  const port = await findFreePort();
  await expect(discoverCluster('::1', port, { timeoutMs: 500 })).rejects.toThrow(`cluster discovery at [::1]:${port} failed: `);
});
