/**
 * What a connection's set-up does, counted rather than timed: a burst of fresh connections waits
 * for every set-up before it (docs/precision.md, "The 50-client maxima"), so the set-up must not
 * grow back the work taken out of it. No wall-clock bound: calls and listeners are counted.
 */
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LinkState } from '../../src/link/link-state.js';
import type { ProxyListener } from '../../src/proxy/listener.js';
import { StatsCollector } from '../../src/stats/stats-collector.js';
import { fakeServer, type FakeServer } from '../hardening/helpers/fake-server.js';
import { bareListener } from './helpers.js';

const PING = '*1\r\n$4\r\nPING\r\n';
const CONNECTIONS = 10;

/** A fake Redis that answers every chunk with one +PONG per PING in it. */
function pongServer(): Promise<FakeServer> {
  return fakeServer((s) => s.on('data', (c) => s.write('+PONG\r\n'.repeat(c.toString().split(PING).length - 1))));
}

/** Opens a client, sends one PING and resolves with the socket once the PONG is back. */
async function pinged(port: number): Promise<net.Socket> {
  const s = net.connect({ host: '127.0.0.1', port });
  s.write(PING);
  await new Promise<void>((resolve) => s.once('data', () => resolve()));
  return s;
}

describe('a connection set-up does only what its first bytes need', () => {
  let server: FakeServer | undefined;
  let listener: ProxyListener | undefined;
  const clients: net.Socket[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const c of clients.splice(0)) c.destroy();
    await listener?.close();
    await server?.close();
  });

  async function start(): Promise<{ listener: ProxyListener; stats: StatsCollector }> {
    server = await pongServer();
    const stats = new StatsCollector();
    const l = (listener = bareListener(server.address, { taps: stats }));
    await l.listen();
    return { listener: l, stats };
  }

  it('asks no peer address and allocates no zero-filled Buffer until someone asks', async () => {
    const { listener: l, stats } = await start();
    // Warm-up: module-level constants are made once, on the first connection.
    clients.push(await pinged(l.port!));
    // Node's own method behind remoteAddress and remotePort (not in its types).
    const peer = vi.spyOn(net.Socket.prototype as unknown as { _getpeername: () => unknown }, '_getpeername');
    const zeroed = vi.spyOn(Buffer, 'alloc');
    for (let i = 0; i < CONNECTIONS; i++) clients.push(await pinged(l.port!));
    expect(peer).not.toHaveBeenCalled();
    expect(zeroed).not.toHaveBeenCalled();
    // Asked for, the address is the client's own.
    const infos = stats.connectionsInfo();
    expect(infos.map((c) => c.client)).toEqual(clients.map((c) => `127.0.0.1:${c.localPort}`));
    expect(stats.snapshot(new LinkState().settings).totals.commands).toBe(CONNECTIONS + 1);
  });

  it('listens for drain only once a side paused: not on a connection that never pushed back', async () => {
    const { listener: l } = await start();
    for (let i = 0; i < 3; i++) clients.push(await pinged(l.port!));
    for (const c of l.connections()) {
      expect(c.client.listenerCount('drain')).toBe(0);
      expect(c.upstream.listenerCount('drain')).toBe(0);
    }
  });
});
