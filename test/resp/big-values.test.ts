import { describe, expect, it } from 'vitest';
import { RequestFramer } from '../../src/resp/request-framer.js';
import type { RequestFrame } from '../../src/resp/types.js';

const MiB = 1024 * 1024;

describe('RequestFramer: large arguments are counted, not buffered', () => {
  it('frames a 16 MiB value fed in 64 KiB chunks without holding it', () => {
    const size = 16 * MiB;
    const seen: { end: number; head: string[]; sizes: number[] }[] = [];
    const framer = new RequestFramer(
      { frame: (f: RequestFrame) => seen.push({ end: f.end, head: f.head.map(String), sizes: [...f.argSizes!] }) },
      { argSizes: true },
    );
    const header = Buffer.from(`*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$${size}\r\n`);
    // One 64 KiB buffer reused for every read, as a socket with a fixed read buffer would: the
    // framer must neither keep it nor copy the value.
    const chunk = Buffer.alloc(64 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    const t0 = performance.now();
    framer.push(header);
    for (let sent = 0; sent < size; sent += chunk.length) {
      chunk.fill(sent === 0 ? 'a' : 'b');
      framer.push(chunk);
    }
    framer.push(Buffer.from('\r\n*1\r\n$4\r\nPING\r\n'));
    const ms = performance.now() - t0;
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(4 * MiB);
    expect(ms).toBeLessThan(500);
    expect(seen).toEqual([
      { end: header.length + size + 2, head: ['SET', 'big', 'a'.repeat(64)], sizes: [3, 3, size] },
      { end: header.length + size + 16, head: ['PING'], sizes: [4] },
    ]);
    expect(framer.offset).toBe(header.length + size + 16);
    expect(framer.unparsedBytes).toBe(0);
  });

  it('frames a many-argument MSET split across chunks', () => {
    const args = ['MSET'];
    for (let i = 0; i < 20_000; i++) args.push(`k${i}`, `v${i}`);
    const bytes = Buffer.from(`*${args.length}\r\n${args.map((a) => `$${a.length}\r\n${a}\r\n`).join('')}`);
    const frames: number[] = [];
    const framer = new RequestFramer({ frame: (f) => frames.push(f.argc) });
    for (let at = 0; at < bytes.length; at += 16384) framer.push(bytes.subarray(at, at + 16384));
    expect(frames).toEqual([args.length]);
  });
});
