import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { parseEndpoint } from '../../src/endpoint.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { RefusalWatch } from '../../src/proxy/refusal-watch.js';
import { mergeSnapshots } from '../../src/cluster/cluster-stats.js';
import { renderPrometheus } from '../../src/stats/prometheus.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { fakeServer, type FakeServer } from '../hardening/helpers/fake-server.js';

const MS = 1_000_000;

/** Connects and resolves once the proxy's listener has closed the socket (a refused client). */
function refusedClient(p: RedisRttProxy): Promise<void> {
  const s = net.connect({ host: p.host!, port: p.port! });
  s.on('error', () => undefined);
  return new Promise((resolve) => s.once('close', () => resolve()));
}

// The window is the proxy's scheduler clock's: a FakeClock steps through it, no sleep needed.
describe('--max-connections refusals are logged at most once a second', () => {
  let server: FakeServer | undefined;
  let proxy: RedisRttProxy | undefined;
  const held: net.Socket[] = [];
  afterEach(async () => {
    for (const s of held) s.destroy();
    await proxy?.close();
    await server?.close();
  });

  it('says so at the first refusal, not again within the second, and again once it has passed', async () => {
    server = await fakeServer(() => undefined);
    const clock = new FakeClock(5_000 * MS);
    const lines: string[] = [];
    proxy = await startSingleNodeProxy({
      upstream: server.address,
      maxConnections: 1,
      scheduler: new ManualScheduler(clock),
      compensationUs: { up: 0, down: 0 },
      handshake: false,
      log: (l) => lines.push(l),
    });
    const first = net.connect({ host: proxy.host!, port: proxy.port! });
    held.push(first);
    await new Promise<void>((r) => first.once('connect', () => r()));
    const refusals = (): string[] => lines.filter((l) => /--max-connections 1 reached/.test(l));

    await refusedClient(proxy);
    expect(refusals()).toEqual(['--max-connections 1 reached: refused a client (1 so far)']);
    clock.advanceUs(999_999);
    await refusedClient(proxy);
    expect(refusals()).toHaveLength(1);
    clock.advanceUs(1);
    await refusedClient(proxy);
    expect(refusals()).toEqual([
      '--max-connections 1 reached: refused a client (1 so far)',
      '--max-connections 1 reached: refused a client (3 so far)',
    ]);
  });

  // The refusals were in the log alone: a test that set the cap could not read how many there were.
  it('counts them in stats().connections.refused and /metrics, zeroed by a reset, summed over nodes, absent without the cap', async () => {
    server = await fakeServer(() => undefined);
    const capped = (proxy = await startSingleNodeProxy({
      upstream: server.address,
      maxConnections: 1,
      compensationUs: { up: 0, down: 0 },
      handshake: false,
      log: () => undefined,
    }));
    const first = net.connect({ host: capped.host!, port: capped.port! });
    held.push(first);
    await vi.waitFor(() => expect(capped.stats().connections.active).toBe(1));
    expect(capped.stats().connections).toEqual({ active: 1, total: 1, refused: 0 });
    await refusedClient(capped);
    await refusedClient(capped);
    const s = capped.stats();
    expect(s.connections).toEqual({ active: 1, total: 1, refused: 2 });
    expect(renderPrometheus(s)).toContain('\n# TYPE redis_rtt_connections_refused_total counter\nredis_rtt_connections_refused_total 2\n');
    expect(mergeSnapshots([s, s], s.link).connections).toEqual({ active: 2, total: 2, refused: 4 });
    capped.resetStats();
    expect(capped.stats().connections).toEqual({ active: 1, total: 1, refused: 0 });

    const open = await startSingleNodeProxy({ upstream: server.address, compensationUs: { up: 0, down: 0 }, handshake: false, log: () => undefined });
    try {
      const u = open.stats();
      expect(u.connections).toEqual({ active: 0, total: 0 });
      expect(renderPrometheus(u)).not.toContain('connections_refused');
      expect(mergeSnapshots([u, u], u.link).connections).toEqual({ active: 0, total: 0 });
    } finally {
      await open.close();
    }
  });

  // The proxied connection closes once the client's FIN has crossed the link and Redis's close has
  // come back; a client that closed and dialed again at once was refused until then.
  it('a client that closed frees its place when its FIN arrives, not once the close has crossed the link', async () => {
    server = await fakeServer(() => undefined);
    const p = (proxy = await startSingleNodeProxy({
      upstream: server.address,
      maxConnections: 1,
      // A clock that never moves: the FIN never crosses the 10 ms link, so the first connection stays open.
      scheduler: new ManualScheduler(new FakeClock(5_000 * MS)),
      link: { rttUs: 20_000 },
      compensationUs: { up: 0, down: 0 },
      handshake: false,
      log: () => undefined,
    }));
    const dial = async (): Promise<net.Socket> => {
      const s = net.connect({ host: p.host!, port: p.port! });
      held.push(s);
      s.on('error', () => undefined);
      await new Promise<void>((r) => s.once('connect', () => r()));
      return s;
    };
    const first = await dial();
    await vi.waitFor(() => expect(p.stats().connections.total).toBe(1));
    // Bytes on their way up: the FIN follows them over the link, which never delivers them.
    first.end('*1\r\n$4\r\nPING\r\n');
    await vi.waitFor(
      async () => {
        const next = await dial();
        const refused = new Promise<boolean>((r) => next.once('close', () => r(true)));
        const admitted = vi.waitFor(() => expect(p.stats().connections.total).toBe(2), { timeout: 200 }).then(
          () => true,
          () => false,
        );
        expect(await Promise.race([refused.then(() => false), admitted])).toBe(true);
      },
      { timeout: 3_000 },
    );
    expect(p.stats().connections.active).toBe(2);
  });
});

// The probe dials every 50 ms; a listener that cannot bind again (another process took the port)
// was logged at each try, twenty lines a second for as long as it lasted.
describe('a listener that cannot listen again once Redis answers', () => {
  let server: FakeServer | undefined;
  let watch: RefusalWatch | undefined;
  afterEach(async () => {
    watch?.close();
    await server?.close();
  });

  it('is logged once per cause, and its success once', async () => {
    server = await fakeServer(() => undefined);
    const lines: string[] = [];
    let tries = 0;
    const causes = ['listen EADDRINUSE: address already in use', 'listen EADDRINUSE: address already in use',
      'listen EADDRINUSE: address already in use', 'listen EACCES: permission denied'];
    watch = new RefusalWatch({
      upstream: parseEndpoint(server.address, '--upstream'),
      stopListening: () => undefined,
      listenAgain: () => (tries < causes.length ? Promise.reject(new Error(causes[tries++])) : Promise.resolve()),
      log: (l) => lines.push(l),
    });
    watch.refused();
    await vi.waitFor(() => expect(watch!.refusing).toBe(false), { timeout: 5_000 });
    expect(tries).toBe(4);
    expect(lines).toEqual([
      'upstream refused a connection: not listening until it answers, so clients are refused as by Redis itself',
      'upstream answers again, but listening failed: listen EADDRINUSE: address already in use; trying again every 50 ms (logged once)',
      'upstream answers again, but listening failed: listen EACCES: permission denied; trying again every 50 ms (logged once)',
      'upstream answers again: listening',
    ]);
  });
});
