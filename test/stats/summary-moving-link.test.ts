import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { renderSummaryTable } from '../../src/stats/summary-table.js';

/**
 * The summary the proxy prints at exit, on a link a series moves: `link` holds the settings (85 ms
 * here), and the series replaced their RTT with 40 ms. The summary showed 85 ms alone, a delay that
 * never ran; it now says the delays the series set too. GET /link answers the settings (docs/link-over-time.md).
 */
describe('the exit summary of a moving link', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('shows the delays now beside the settings, and what moves them', async () => {
    const proxy = await startSingleNodeProxy({
      upstream: redis.address,
      compensationUs: { up: 0, down: 0 },
      link: { rttUs: 85_000 },
      rttSeries: '0,40\n3600,40',
    });
    try {
      const line = renderSummaryTable(proxy.stats()).split('\n')[0];
      expect(line).toMatch(/link up 42\.5ms down 42\.5ms \(now up 20ms down 20ms, moved by the series\)$/);
    } finally {
      await proxy.close();
    }
  });
});
