/**
 * Real redis-server, real proxy with its TCP handshake cost (and --listen-tls), real ioredis: an application
 * that opens a connection per command is recorded on a 2 ms link; analyze names the connection set-up, and
 * its projection to 20 ms is checked against the same application run through a 20 ms link.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeTrace } from '../../src/record/analyze.js';
import { renderText } from '../../src/record/render.js';
import type { ProxyOptions, RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.js';
import { ioredis, recordSession, timeSession } from './session.js';

const RTT_US = 20_000;
const CONNECTIONS = 6;
const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-setup-e2e-'));
let redis: PrivateRedis;

beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * One connection per GET, one after another, each naming itself first and waiting for the reply, as
 * redis-py does on connect (ioredis's own connectionName does not wait, so the GET may share its round trip).
 */
async function connectionPerCommand(p: RedisRttProxy): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < CONNECTIONS; i++) {
    const r = ioredis(p, {
      enableReadyCheck: false,
      disableClientInfo: true,
      protocol: 2,
      ...(p.tlsCaFile ? { tls: { ca: readFileSync(p.tlsCaFile) } } : {}),
    });
    await r.connect();
    await r.call('CLIENT', 'SETNAME', 'per-request');
    await r.get(`rtt:setup:${i}`);
    r.disconnect();
  }
  return performance.now() - t0;
}

const CASES: [string, Partial<ProxyOptions>, number, Record<string, number>][] = [
  ['TCP', {}, 0, {}],
  ['TLS 1.2', { listenTls: { maxVersion: 'TLSv1.2' } }, 2, { 'TLSv1.2': CONNECTIONS }],
];

describe('a connection per command, recorded and projected to 20 ms', () => {
  for (const [label, proxy, tlsRtts, tls] of CASES) {
    it(`${label}: analyze names the set-up (TCP connect${tlsRtts ? ', TLS' : ''}, CLIENT SETNAME) and projects it within 15% of a 20 ms run`, async () => {
      const attempts: string[] = [];
      let best = Infinity;
      for (let attempt = 1; attempt <= 3 && best >= 15; attempt++) {
        const rec = await recordSession(redis.address, join(dir, `${label}-${attempt}.trace`), connectionPerCommand, { proxy, rttUs: 2000 });
        const a = analyzeTrace(rec.trace, { rttsUs: [RTT_US] });
        expect(a.setup, JSON.stringify(a.setup)).toMatchObject({
          opened: CONNECTIONS, tls, tcpRoundTrips: CONNECTIONS, tlsRoundTrips: tlsRtts * CONNECTIONS, commandRoundTrips: CONNECTIONS,
          setupCommands: { 'CLIENT SETNAME': CONNECTIONS }, otherCommands: CONNECTIONS, perConnection: 2 + tlsRtts,
        });
        const p = a.projections[0]!;
        // Per connection (2 + tls) set-up round trips of (3 + tls): the share of the time waited (Redis's time aside).
        expect(p.setupSharePct, JSON.stringify(a.projections)).toBeGreaterThan((100 * (2 + tlsRtts)) / (3 + tlsRtts) - 10);
        expect(renderText(a)).toContain(`note: ${CONNECTIONS} connections opened for ${CONNECTIONS} commands: connection set-up is`);
        const measured = await timeSession(redis.address, RTT_US, connectionPerCommand, proxy);
        const errorPct = (100 * (p.wallMs - measured.wallMs)) / measured.wallMs;
        best = Math.min(best, Math.abs(errorPct));
        attempts.push(
          `attempt ${attempt}: recorded ${a.recorded.wallMs.toFixed(1)} ms; projected ${p.wallMs.toFixed(1)} ms at 20 ms (set-up ${p.setupMs.toFixed(1)} ms, ` +
            `${p.setupSharePct}%), measured ${measured.wallMs.toFixed(1)} ms: ${errorPct >= 0 ? '+' : ''}${errorPct.toFixed(1)}%`,
        );
      }
      console.log(`${label} set-up projection\n${attempts.join('\n')}`);
      expect(best, attempts.join('\n')).toBeLessThan(15);
    }, 30_000);
  }
});
