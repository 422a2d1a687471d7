import { createHash } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { fakeServer, readAll, type FakeServer } from './helpers/fake-server.js';
import { runCases, within, writeInPieces } from './helpers/fuzz-run.js';
import { badReply, mutate, noise, replies, requests } from './helpers/resp-gen.js';
import { Rng } from './helpers/rng.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20240607);
/** Set explicitly: auto compensation would open its own calibration connections to the upstream. */
const NO_COMPENSATION = { up: 0, down: 0 };
const digest = (b: Buffer): string => createHash('sha1').update(b).digest('hex');

/** What a broken server sends in one case. */
function serverBytes(rng: Rng): Buffer {
  switch (rng.int(4)) {
    case 0:
      return replies(rng, 8);
    case 1:
      return mutate(rng, replies(rng, 8));
    case 2:
      return badReply(rng);
    default:
      return noise(rng);
  }
}

describe('fuzz: random and damaged replies from a fake server, forwarded unchanged', () => {
  let server: FakeServer;
  let proxy: RedisRttProxy;
  /** Per server-side connection: what it sent and what it received. */
  const sentByServer: Buffer[] = [];
  const receivedByServer: Buffer[][] = [];
  /** Server seeds are handed out in accept order; the byte comparison does not depend on it. */
  let nextServerSeed = SEED + 400_000;
  /** A test can queue what the next accepted connection sends instead of a fuzz case. */
  const scripted: Buffer[] = [];

  beforeAll(async () => {
    server = await fakeServer((s) => {
      const rng = new Rng(nextServerSeed++);
      const got: Buffer[] = [];
      receivedByServer.push(got);
      s.on('data', (d: Buffer) => got.push(d));
      const data = scripted.shift() ?? serverBytes(rng);
      sentByServer.push(data);
      // Answer once the client's first request is in, like a server would.
      s.once('data', () => {
        void writeInPieces(s, data, rng).then(() => s.end());
      });
      s.on('end', () => s.end());
    });
    proxy = await startSingleNodeProxy({ upstream: server.address, link: { rttUs: 200 }, compensationUs: NO_COMPENSATION, log: () => undefined });
    // The start's own dial (is Redis down? refusal-watch.ts) is not a client's connection.
    sentByServer.length = 0;
    receivedByServer.length = 0;
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  it('byte-exact to the client, never throws, thousands of seeded cases', { timeout: 60_000 }, async () => {
    const clientGot: Buffer[] = [];
    const clientSent: Buffer[] = [];
    const cases = await runCases(10_000, 4500, 16, async (i) => {
      const rng = new Rng(SEED + 300_000 + i);
      const s = net.connect({ host: proxy.host!, port: proxy.port!, noDelay: true });
      s.on('error', () => undefined);
      const got = readAll(s);
      await new Promise<void>((r) => s.once('connect', () => r()));
      const req = requests(rng, 4);
      clientSent.push(req);
      s.write(req);
      // Once the server's FIN arrives the client (no allowHalfOpen) closes its side too.
      clientGot.push(await within(got, 10_000, 'client connection'));
    });
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 10_000, interval: 5 });
    const sorted = (bs: Buffer[]): string[] => bs.map(digest).sort();
    expect(sorted(clientGot)).toEqual(sorted(sentByServer));
    expect(sorted(receivedByServer.map((g) => Buffer.concat(g)))).toEqual(sorted(clientSent));
    const s = proxy.stats();
    expect(s.connections.total).toBe(cases);
    expect(s.totals.bytesDown).toBe(sentByServer.reduce((n, b) => n + b.length, 0));
    expect(s.totals.unparsedBytes).toBeGreaterThan(0);
    console.log(`[figure] fuzz server->client: ${cases} cases (seed ${SEED}), ${s.totals.bytesDown} reply bytes, ${s.totals.unparsedBytes} unparsed, 0 crashes`);
    expect(cases).toBeGreaterThanOrEqual(500);
  });

  it('counts unparsed bytes for every reply stream no framer can follow', async () => {
    for (let i = 0; i < 20; i++) {
      const seed = SEED + 500_000 + i;
      const before = proxy.stats().totals.unparsedBytes;
      const broken = badReply(new Rng(seed));
      scripted.push(broken);
      const s = net.connect({ host: proxy.host!, port: proxy.port!, noDelay: true });
      s.on('error', () => undefined);
      const got = readAll(s);
      await new Promise<void>((r) => s.once('connect', () => r()));
      s.write('*1\r\n$4\r\nPING\r\n');
      expect((await within(got, 10_000, 'client connection')).equals(broken), `seed ${seed}`).toBe(true);
      await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
      expect(proxy.stats().totals.unparsedBytes, `seed ${seed}`).toBeGreaterThan(before);
    }
  });
});
