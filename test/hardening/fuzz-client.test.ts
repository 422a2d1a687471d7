import { createHash } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { parseEndpoint } from '../../src/endpoint.js';
import { fakeServer, readAll, type FakeServer } from './helpers/fake-server.js';
import { runCases, within, writeInPieces } from './helpers/fuzz-run.js';
import { badRequest, mutate, noise, requests } from './helpers/resp-gen.js';
import { Rng } from './helpers/rng.js';
import { startTee, type TeeRecord } from './helpers/tee.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20240607);
/** Set explicitly: auto compensation would open its own calibration connections to the upstream. */
const NO_COMPENSATION = { up: 0, down: 0 };
const CASE_TIMEOUT_MS = 10_000;

const digest = (b: Buffer): string => createHash('sha1').update(b).digest('hex');
const sortedDigests = (bs: Buffer[]): string[] => bs.map(digest).sort();

/** What a client sends in one case: valid, damaged, broken-on-purpose or noise. */
function clientBytes(rng: Rng): Buffer {
  switch (rng.int(4)) {
    case 0:
      return requests(rng, 8);
    case 1:
      return mutate(rng, requests(rng, 8));
    case 2:
      return badRequest(rng);
    default:
      return noise(rng);
  }
}

/** One client connection: write `data` in pieces, half-close, read until the proxy closes. */
async function oneClient(proxy: RedisRttProxy, data: Buffer, rng: Rng): Promise<Buffer> {
  const s = net.connect({ host: proxy.host!, port: proxy.port!, noDelay: true });
  s.on('error', () => undefined); // a reset is an acceptable end; bytes are compared below
  const got = readAll(s);
  await new Promise<void>((r) => s.once('connect', () => r()));
  await writeInPieces(s, data, rng);
  s.end();
  return within(got, CASE_TIMEOUT_MS, 'client connection');
}

describe('fuzz: random and damaged RESP from clients, forwarded unchanged', () => {
  let echo: FakeServer;
  let echoed: Buffer[][];
  let proxy: RedisRttProxy;
  beforeAll(async () => {
    echoed = [];
    // A raw server that records what it receives and sends every byte straight back.
    echo = await fakeServer((s) => {
      const got: Buffer[] = [];
      echoed.push(got);
      s.on('data', (d: Buffer) => {
        got.push(d);
        s.write(d);
      });
      s.on('end', () => s.end());
    });
    proxy = await startSingleNodeProxy({ upstream: echo.address, link: { rttUs: 200 }, compensationUs: NO_COMPENSATION, log: () => undefined });
    // The start's own dial (is Redis down? refusal-watch.ts) is not a client's connection.
    echoed.length = 0;
  });
  afterAll(async () => {
    await proxy?.close();
    await echo?.close();
  });

  it('to a raw echo server: both directions byte-exact, thousands of seeded cases', { timeout: 60_000 }, async () => {
    const sent: Buffer[] = [];
    const cases = await runCases(10_000, 5000, 16, async (i) => {
      const rng = new Rng(SEED + i);
      const data = clientBytes(rng);
      sent.push(data);
      const back = await oneClient(proxy, data, rng);
      // The echo server returns exactly what reached it, so this checks both directions at once.
      if (!back.equals(data)) throw new Error(`seed ${SEED + i}: sent ${data.length} bytes, got back ${back.length}`);
    });
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
    // And independently: what the server received, connection by connection, is what was sent.
    expect(sortedDigests(echoed.map((g) => Buffer.concat(g)))).toEqual(sortedDigests(sent));
    const s = proxy.stats();
    expect(s.connections.total).toBe(cases);
    expect(s.totals.bytesUp).toBe(sent.reduce((n, b) => n + b.length, 0));
    expect(s.totals.bytesDown).toBe(s.totals.bytesUp);
    expect(s.totals.unparsedBytes).toBeGreaterThan(0);
    console.log(`[figure] fuzz client->echo: ${cases} cases (seed ${SEED}), ${s.totals.bytesUp} bytes each way, ${s.totals.unparsedBytes} unparsed, 0 crashes`);
    expect(cases).toBeGreaterThanOrEqual(500);
  });

  it('counts unparsed bytes for every request stream no framer can follow', async () => {
    for (let i = 0; i < 20; i++) {
      const rng = new Rng(SEED + 100_000 + i);
      const before = proxy.stats().totals.unparsedBytes;
      const data = badRequest(rng);
      expect((await oneClient(proxy, data, rng)).equals(data)).toBe(true);
      await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
      expect(proxy.stats().totals.unparsedBytes, `seed ${SEED + 100_000 + i}`).toBeGreaterThan(before);
    }
  });

  it('then serves a clean connection with exact counts', async () => {
    proxy.resetStats();
    // RESP arrays of bulk strings: valid requests, and valid replies once echoed back.
    const clean = Buffer.from('*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n');
    const rng = new Rng(2);
    expect((await oneClient(proxy, clean, rng)).equals(clean)).toBe(true);
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
    const s = proxy.stats();
    expect(s.totals.unparsedBytes).toBe(0);
    expect(s.totals.commands).toBe(3);
  });
});

describe('fuzz: random and damaged RESP from clients to a real redis-server', () => {
  let redis: PrivateRedis;
  let tee: Awaited<ReturnType<typeof startTee>>;
  let proxy: RedisRttProxy;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    tee = await startTee(parseEndpoint(redis.address, 'redis'));
    proxy = await startSingleNodeProxy({ upstream: tee.server.address, link: { rttUs: 200 }, compensationUs: NO_COMPENSATION, log: () => undefined });
    // The start's own dial (is Redis down? refusal-watch.ts) is not a client's connection.
    tee.records.length = 0;
  });
  afterAll(async () => {
    await proxy?.close();
    await tee?.server.close();
    await redis?.stop();
  });

  it('forwards every byte both ways, never throws, and Redis keeps serving', { timeout: 60_000 }, async () => {
    const sent: Buffer[] = [];
    const received: Buffer[] = [];
    const cases = await runCases(8000, 5000, 12, async (i) => {
      const rng = new Rng(SEED + 200_000 + i);
      const data = clientBytes(rng);
      sent.push(data);
      received.push(await oneClient(proxy, data, rng));
    });
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 10_000, interval: 5 });
    await Promise.all(tee.records.map((r: TeeRecord) => r.done));
    // Redis received exactly what the clients sent, and the clients exactly what Redis sent.
    expect(sortedDigests(tee.records.map((r) => Buffer.concat(r.up)))).toEqual(sortedDigests(sent));
    expect(sortedDigests(tee.records.map((r) => Buffer.concat(r.down)))).toEqual(sortedDigests(received));
    const s = proxy.stats();
    expect(s.connections.total).toBe(cases);
    expect(s.totals.replies).toBeGreaterThan(0);
    console.log(
      `[figure] fuzz client->redis: ${cases} cases (seed ${SEED}), ${s.totals.commands} commands parsed, ` +
        `${s.totals.replies} replies, ${s.totals.unparsedBytes} unparsed bytes, 0 crashes`,
    );
    expect(cases).toBeGreaterThanOrEqual(300);

    // A clean client afterwards gets exact answers and exact counts.
    proxy.resetStats();
    const clean = Buffer.from('*3\r\n$3\r\nSET\r\n$5\r\nfz:ok\r\n$2\r\nok\r\n*2\r\n$3\r\nGET\r\n$5\r\nfz:ok\r\n');
    expect((await oneClient(proxy, clean, new Rng(3))).toString()).toBe('+OK\r\n$2\r\nok\r\n');
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
    expect(proxy.stats().totals).toMatchObject({ commands: 2, replies: 2, unparsedBytes: 0, errorReplies: 0 });
  });
});
