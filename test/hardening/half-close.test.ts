import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { fakeServer, readAll, type FakeServer } from './helpers/fake-server.js';

const ONE_WAY_MS = 20;
/** Timer and loopback slack on a busy 2-core machine. */
const TOLERANCE_MS = 15;

/** A client that may keep writing after it got the server's FIN (as a half-open TCP peer can). */
async function halfOpenClient(proxy: RedisRttProxy): Promise<net.Socket> {
  const s = net.connect({ host: proxy.host!, port: proxy.port!, allowHalfOpen: true, noDelay: true });
  await new Promise<void>((r) => s.once('connect', () => r()));
  return s;
}

describe('half-close passes through in both directions, behind the data', () => {
  let server: FakeServer | undefined;
  let proxy: RedisRttProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    await server?.close();
  });

  async function start(onConnection: (s: net.Socket) => void): Promise<RedisRttProxy> {
    // The start's own dial (is Redis down? refusal-watch.ts) is not a client's connection.
    let started = false;
    server = await fakeServer((s) => {
      if (started) onConnection(s);
    });
    proxy = await startSingleNodeProxy({
      upstream: server.address,
      link: { rttUs: 2 * ONE_WAY_MS * 1000 },
      compensationUs: { up: 0, down: 0 },
      handshake: false,
      log: () => undefined,
    });
    started = true;
    return proxy;
  }

  it('client FIN: the upstream sees every byte, then the FIN one delay later; it can still answer', async () => {
    const payload = Buffer.alloc(3 << 20, 7); // bigger than socket buffers: the FIN must wait for it
    let serverGot: Promise<Buffer> | undefined;
    let serverEndAt = 0;
    const p = await start((s) => {
      serverGot = readAll(s);
      s.once('end', () => {
        serverEndAt = performance.now();
        // Half-open: the server answers after the client's FIN, then closes its side.
        s.end('reply-after-fin');
      });
    });
    const c = await halfOpenClient(p);
    const clientGot = readAll(c);
    const finAt = performance.now();
    c.end(payload);
    const back = await clientGot;
    expect((await serverGot!).equals(payload)).toBe(true);
    expect(back.toString()).toBe('reply-after-fin');
    expect(serverEndAt - finAt).toBeGreaterThanOrEqual(ONE_WAY_MS - 1);
    await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 5000, interval: 5 });
  });

  it('upstream FIN: the client gets the data, then the FIN; it can still send, and the upstream gets it', async () => {
    let serverGot: Promise<Buffer> | undefined;
    const p = await start((s) => {
      serverGot = readAll(s);
      s.end(Buffer.alloc(1 << 20, 9)); // data, then FIN right behind it
    });
    const c = await halfOpenClient(p);
    const chunks: Buffer[] = [];
    c.on('data', (d: Buffer) => chunks.push(d));
    const t0 = performance.now();
    await new Promise<void>((r) => c.once('end', () => r()));
    const endAfterMs = performance.now() - t0;
    const got = Buffer.concat(chunks);
    expect(got.length).toBe(1 << 20);
    expect(got.every((b) => b === 9)).toBe(true);
    expect(endAfterMs).toBeGreaterThanOrEqual(ONE_WAY_MS - 1);
    // Still half-open towards the server: what the client sends now arrives, then its FIN.
    c.end('late-request');
    expect((await serverGot!).toString()).toBe('late-request');
    await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 5000, interval: 5 });
  });

  it('both at once: each side gets all the other sent, then its FIN', async () => {
    let serverGot: Promise<Buffer> | undefined;
    const p = await start((s) => {
      serverGot = readAll(s);
      s.end('from-server');
    });
    const c = await halfOpenClient(p);
    const clientGot = readAll(c);
    c.end('from-client');
    expect((await clientGot).toString()).toBe('from-server');
    expect((await serverGot!).toString()).toBe('from-client');
    await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 5000, interval: 5 });
  });

  it('a FIN never overtakes delayed data (one write then end, many times)', async () => {
    const received: Promise<Buffer>[] = [];
    const p = await start((s) => {
      received.push(readAll(s));
      s.on('end', () => s.end());
    });
    const sent: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const c = await halfOpenClient(p);
        const done = readAll(c);
        const msg = `msg-${i}-`.repeat(100 * (i + 1));
        sent.push(msg);
        c.write(msg.slice(0, 10));
        c.end(msg.slice(10));
        await done;
      }),
    );
    const got = (await Promise.all(received)).map((b) => b.toString()).sort();
    expect(got).toEqual([...sent].sort());
    await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 5000, interval: 5 });
  });

  it('the upstream closes without reading all (RST): the client gets what was sent, then a reset, promptly', async () => {
    const p = await start((s) => {
      s.once('data', () => {
        // A reset, not a close: input left unread makes the kernel send a RST only if some is still
        // queued at close, which on a busy machine it may not be (then a FIN goes, a different case).
        s.pause();
        s.write('partial-answer');
        setTimeout(() => s.resetAndDestroy(), 5);
      });
    });
    const c = await halfOpenClient(p);
    const chunks: Buffer[] = [];
    c.on('data', (d: Buffer) => chunks.push(d));
    const errored = new Promise<string>((r) => c.once('error', (e: NodeJS.ErrnoException) => r(e.code ?? '')));
    const closed = new Promise<void>((r) => c.once('close', () => r()));
    c.write(Buffer.alloc(4 << 20, 1));
    const t0 = performance.now();
    await closed;
    expect(performance.now() - t0).toBeLessThan(1000 + TOLERANCE_MS);
    expect(Buffer.concat(chunks).toString()).toBe('partial-answer');
    expect(await errored).toBe('ECONNRESET');
    await vi.waitUntil(() => p.stats().connections.active === 0, { timeout: 5000, interval: 5 });
  });
});
