import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { fakeServer, type FakeServer } from '../hardening/helpers/fake-server.js';

/** The proxy's --connect-timeout here: far longer than the test waits for anything. */
const CONNECT_TIMEOUT_MS = 20_000;
/** How soon a client that left is let go (a close, and no connection counted open). */
const LET_GO_MS = 2000;

/** A socket to the proxy, resolved once connected, with a promise of its close. */
async function connect(port: number): Promise<{ s: net.Socket; closed: Promise<void> }> {
  const s = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  s.on('error', () => undefined);
  s.resume();
  const closed = new Promise<void>((r) => s.once('close', () => r()));
  await new Promise<void>((r) => s.once('connect', () => r()));
  return { s, closed };
}

describe('a client that leaves while the dial to Redis is still unanswered', () => {
  // Accepts and never speaks: a TLS dial to it never finishes, as a dial to a stalled Redis.
  let silent: FakeServer;
  beforeAll(async () => {
    silent = await fakeServer(() => undefined);
  });
  afterAll(async () => {
    await silent?.close();
  });

  it('having sent nothing, it is let go at once, not at --connect-timeout; one that sent a command is still waited for', async () => {
    const p = await startSingleNodeProxy({
      upstream: silent.address,
      upstreamTls: true,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
    });
    try {
      const quiet = await connect(p.port!);
      const sent = await connect(p.port!);
      sent.s.end('PING\r\n');
      quiet.s.end();
      const t0 = Date.now();
      await quiet.closed;
      expect(Date.now() - t0).toBeLessThan(LET_GO_MS);
      await vi.waitFor(() => expect(p.stats().connections.active).toBe(1), { timeout: LET_GO_MS });
      // Its PING is owed a reply once Redis answers: its connection stays until then, or the timeout.
      expect(sent.s.closed).toBe(false);
      sent.s.destroy();
    } finally {
      await p.close();
    }
  });
});
