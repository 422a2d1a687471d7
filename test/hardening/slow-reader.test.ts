import net from 'node:net';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startCliProxy, type CliProxy } from './helpers/cli-proxy.js';
import { MiB, procMemory } from './helpers/proc.js';

const VALUE_BYTES = 64 * MiB;
const GETS = 16; // 1 GiB of replies due
const HIGH_WATER = '4mb';
/**
 * The documented bound on the proxy's peak RSS (VmHWM) while 1 GiB is due to a reader that stopped:
 * Node's own ~60-90 MiB, the high-water mark per direction (4 MiB), socket buffers, one 64 KiB read
 * in flight, and allocator slack. Far below the 1024 MiB a proxy without backpressure would hold.
 */
const RSS_BOUND_BYTES = 200 * MiB;
/** RSS growth from start to the peak of the stall: the held bytes (2 x high water) plus slack. */
const STALL_GROWTH_BOUND_BYTES = 64 * MiB;
/** Once the backlog is built the stall goes on this long, RSS sampled every RSS_SAMPLE_MS: nothing more may pile up in the proxy. */
const STALL_HOLD_MS = 1000;
const RSS_SAMPLE_MS = 50;

/** The value: every byte differs from its neighbours' pattern, so a shifted or lost byte shows. */
function patternValue(): Buffer {
  const b = Buffer.alloc(VALUE_BYTES);
  for (let i = 0; i < VALUE_BYTES; i++) b[i] = (i * 7 + (i >>> 16)) % 251;
  return b;
}

describe('a reader that stops while 1 GiB of replies is due (proxy in a child process)', () => {
  let redis: PrivateRedis;
  let admin: Redis;
  let proxy: CliProxy;
  let reply: Buffer;

  beforeAll(async () => {
    // Redis keeps the backlog for a slow client (instead of disconnecting it) as a real one would
    // with the limit lifted: the proxy must push back, not absorb it.
    redis = await startPrivateRedis({ args: ['--client-output-buffer-limit', 'normal 0 0 0'] });
    admin = new Redis({ host: redis.host, port: redis.port, lazyConnect: true });
    await admin.connect();
    const value = patternValue();
    await admin.set('slow:big', value);
    reply = Buffer.concat([Buffer.from(`$${VALUE_BYTES}\r\n`), value, Buffer.from('\r\n')]);
    proxy = await startCliProxy(['--upstream', redis.address, '--rtt', '1ms', '--high-water', HIGH_WATER]);
  }, 60_000);
  afterAll(async () => {
    admin?.disconnect();
    await proxy?.stop('SIGTERM');
    await redis?.stop();
  });

  it(`keeps the proxy's peak RSS under ${RSS_BOUND_BYTES / MiB} MiB, then delivers every byte once the reader resumes`, { timeout: 180_000 }, async () => {
    const startMem = procMemory(proxy.pid);
    const s = net.connect({ host: proxy.host, port: proxy.port, noDelay: true });
    await new Promise<void>((r) => s.once('connect', () => r()));
    s.pause();
    s.write('*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$10\r\nslowreader\r\n' + '*2\r\n$3\r\nGET\r\n$8\r\nslow:big\r\n'.repeat(GETS));

    // Wait until Redis has built (nearly) the whole backlog for the proxy's stalled upstream.
    let omem = 0;
    let peakRss = 0;
    await vi.waitUntil(
      async () => {
        const line = ((await admin.client('LIST')) as string).split('\n').find((l) => l.includes(' name=slowreader '));
        omem = Number(/ omem=(\d+)/.exec(line ?? '')?.[1] ?? 0);
        peakRss = Math.max(peakRss, procMemory(proxy.pid).rssBytes);
        return omem >= (GETS - 2) * VALUE_BYTES;
      },
      { timeout: 60_000, interval: RSS_SAMPLE_MS },
    );
    // Hold the stall a little longer: nothing more may pile up in the proxy.
    for (let i = 0; i < STALL_HOLD_MS / RSS_SAMPLE_MS; i++) {
      peakRss = Math.max(peakRss, procMemory(proxy.pid).rssBytes);
      await sleep(RSS_SAMPLE_MS);
    }
    const stalled = procMemory(proxy.pid);
    expect(stalled.hwmBytes).toBeLessThan(RSS_BOUND_BYTES);
    // What the stall itself added: the held bytes, not the backlog.
    expect(peakRss - startMem.rssBytes).toBeLessThan(STALL_GROWTH_BOUND_BYTES);

    // The reader resumes: every byte of the 16 replies arrives, in order, unchanged.
    let pos = 0;
    let mismatch: string | undefined;
    const total = GETS * reply.length + '+OK\r\n'.length;
    const done = new Promise<void>((resolve) => {
      s.on('data', (d: Buffer) => {
        let off = 0;
        if (pos < 5) {
          const head = Math.min(5 - pos, d.length);
          if (!d.subarray(0, head).equals(Buffer.from('+OK\r\n').subarray(pos, pos + head))) mismatch ??= `at ${pos}: not +OK`;
          off = head;
          pos += head;
        }
        while (off < d.length) {
          const inReply = (pos - 5) % reply.length;
          const n = Math.min(d.length - off, reply.length - inReply);
          if (!d.subarray(off, off + n).equals(reply.subarray(inReply, inReply + n))) mismatch ??= `at ${pos}: bytes differ`;
          off += n;
          pos += n;
        }
        if (pos >= total) resolve();
      });
    });
    const tResume = Date.now();
    s.resume();
    await done;
    const drainMs = Date.now() - tResume;
    expect(mismatch).toBeUndefined();
    expect(pos).toBe(total);
    const after = procMemory(proxy.pid);
    expect(after.hwmBytes).toBeLessThan(RSS_BOUND_BYTES);
    s.destroy();

    console.log(
      `[figure] slow reader, ${GETS} x 64 MiB = ${((GETS * reply.length) / MiB).toFixed(0)} MiB due, high-water ${HIGH_WATER}: proxy RSS at start ` +
        `${(startMem.rssBytes / MiB).toFixed(0)} MiB, peak while stalled ${(peakRss / MiB).toFixed(0)} MiB ` +
        `(VmHWM ${(stalled.hwmBytes / MiB).toFixed(0)} MiB, Redis held ${(omem / MiB).toFixed(0)} MiB), VmHWM after ` +
        `delivering all ${(pos / MiB).toFixed(0)} MiB ${(after.hwmBytes / MiB).toFixed(0)} MiB in ${drainMs} ms; bound ${RSS_BOUND_BYTES / MiB} MiB`,
    );
  });
});
