import net from 'node:net';
import { Redis } from 'ioredis';
import { vi } from 'vitest';

/**
 * The memory case of issue 17: a BLPOP that blocks, then `pingBytes` of pipelined PINGs on the
 * same connection, written as fast as the socket takes them. Once the writes stall (the proxy
 * pushes back) or finish, another client LPUSHes so the BLPOP returns; then every reply must
 * arrive in order: the BLPOP's array first, then one +PONG per PING.
 */
export interface BlpopPipelineResult {
  pings: number;
  /** Whether the writer had to wait for the socket before the BLPOP was released. */
  stalledBeforeRelease: boolean;
  ms: number;
}

const PING = Buffer.from('*1\r\n$4\r\nPING\r\n');
const PONG = Buffer.from('+PONG\r\n');
/** The writer counts as stalled (the proxy pushes back) after this long without progress. */
const NO_PROGRESS_MS = 2000;

export async function blpopThenPipeline(proxy: { host: string; port: number }, pingBytes: number, list = 'issue17:q'): Promise<BlpopPipelineResult> {
  const t0 = Date.now();
  const pings = Math.floor(pingBytes / PING.length);
  const blpop = Buffer.from(`*3\r\n$5\r\nBLPOP\r\n$${Buffer.byteLength(list)}\r\n${list}\r\n$1\r\n0\r\n`);
  const expectedFirst = Buffer.from(`*2\r\n$${Buffer.byteLength(list)}\r\n${list}\r\n$1\r\nx\r\n`);
  const s = net.connect({ host: proxy.host, port: proxy.port });
  await new Promise<void>((r, j) => s.once('connect', r).once('error', j));

  let received = 0;
  let firstOk = true;
  let pongs = 0;
  let bad = '';
  const allReplies = new Promise<void>((resolve, reject) => {
    s.on('data', (d: Buffer) => {
      for (let i = 0; i < d.length; i++, received++) {
        if (received < expectedFirst.length) {
          if (d[i] !== expectedFirst[received]) firstOk = false;
          continue;
        }
        const at = (received - expectedFirst.length) % PONG.length;
        if (d[i] !== PONG[at] && bad === '') bad = `byte ${received}: ${d.subarray(i, i + 20).toString()}`;
        if (at === PONG.length - 1) pongs++;
      }
      if (pongs >= pings) resolve();
    });
    s.once('close', () => reject(new Error(`closed after ${pongs}/${pings} PONGs`)));
    s.once('error', reject);
  });

  s.write(blpop);
  // Batches of 4096 PINGs (56 KiB): the writer waits for 'drain', so a paused proxy stalls it.
  const batch = Buffer.concat(Array.from({ length: 4096 }, () => PING));
  let written = 0;
  let writerDone = false;
  let lastProgress = Date.now();
  const writer = (async () => {
    while (written < pings) {
      const n = Math.min(4096, pings - written);
      const ok = s.write(n === 4096 ? batch : batch.subarray(0, n * PING.length));
      written += n;
      lastProgress = Date.now();
      if (!ok) await new Promise<void>((r) => s.once('drain', r));
    }
  })();
  void writer.then(
    () => (writerDone = true),
    () => (writerDone = true),
  );
  // Release the BLPOP once everything is written or the writer made no progress for NO_PROGRESS_MS.
  await vi.waitUntil(() => writerDone || Date.now() - lastProgress > NO_PROGRESS_MS, { timeout: 60_000, interval: 100 });
  const stalled = !writerDone;
  const other = new Redis({ host: proxy.host, port: proxy.port, maxRetriesPerRequest: 1 });
  await other.lpush(list, 'x');
  other.disconnect();
  await writer;
  await allReplies;
  s.destroy();
  if (!firstOk) throw new Error('the BLPOP reply did not come first');
  if (bad !== '') throw new Error(`replies out of order or damaged at ${bad}`);
  if (pongs !== pings) throw new Error(`${pongs} PONGs for ${pings} PINGs`);
  return { pings, stalledBeforeRelease: stalled, ms: Date.now() - t0 };
}
