import net from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { reset, SocketSink } from '../../src/stage/socket-sink.js';

/** A connected socket pair on loopback, with the far side's reads and the near side's writes counted. */
async function pair(): Promise<{ near: net.Socket; far: net.Socket; writes: () => number; close: () => void }> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const near = net.connect(port, '127.0.0.1');
  const [far] = (await once(server, 'connection')) as [net.Socket];
  await once(near, 'connect');
  // Each system call Node makes for this socket goes through one of these two.
  const handle = (near as unknown as { _handle: { writeBuffer: unknown; writev: unknown } })._handle;
  let writes = 0;
  for (const name of ['writeBuffer', 'writev', 'writeLatin1String', 'writeUtf8String'] as const) {
    const h = handle as unknown as Record<string, (...a: unknown[]) => unknown>;
    const orig = h[name];
    if (typeof orig !== 'function') continue;
    h[name] = (...a: unknown[]) => {
      writes++;
      return orig.apply(handle, a);
    };
  }
  return {
    near,
    far,
    writes: () => writes,
    close: () => {
      near.destroy();
      far.destroy();
      server.close();
    },
  };
}

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

async function readAll(far: net.Socket, bytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  while (n < bytes) {
    const [c] = (await once(far, 'data')) as [Buffer];
    parts.push(c);
    n += c.length;
  }
  return Buffer.concat(parts);
}

describe('SocketSink', () => {
  it('writes each push by itself until told to coalesce (one chunk per read needs no cork)', async () => {
    const p = await pair();
    cleanup = p.close;
    const sink = new SocketSink(p.near, { written: () => {} }, () => {});
    for (let i = 0; i < 10; i++) sink.push(Buffer.from(`+r${i}\r\n`), 0);
    expect(p.writes()).toBe(10);
    expect((await readAll(p.far, 50)).toString()).toBe(Array.from({ length: 10 }, (_, i) => `+r${i}\r\n`).join(''));
  });

  it('coalescing, sends a turn of pushes in one write, in order, and reports each written at push', async () => {
    const p = await pair();
    cleanup = p.close;
    const written: number[] = [];
    const sink = new SocketSink(p.near, { written: (end) => void written.push(end) }, () => {});
    sink.coalesceTurns();
    for (let i = 0; i < 100; i++) sink.push(Buffer.from(`+r${String(i).padStart(2, '0')}\r\n`), 0);
    expect(p.writes()).toBe(0); // held corked until the turn ends
    expect(written).toHaveLength(100);
    expect(written[99]).toBe(600);
    const got = await readAll(p.far, 600);
    expect(p.writes()).toBe(1);
    expect(got.toString()).toBe(Array.from({ length: 100 }, (_, i) => `+r${String(i).padStart(2, '0')}\r\n`).join(''));
    // The next turn corks again.
    sink.push(Buffer.from('+x\r\n'), 0);
    sink.push(Buffer.from('+y\r\n'), 0);
    expect((await readAll(p.far, 8)).toString()).toBe('+x\r\n+y\r\n');
    expect(p.writes()).toBe(2);
  });

  it('coalescing, lets what a turn pushed out before a FIN or a reset in the same turn', async () => {
    const p = await pair();
    cleanup = p.close;
    const sink = new SocketSink(p.near, { written: () => {} }, (kind) => (kind === 'end' ? p.near.end() : reset(p.near)));
    sink.coalesceTurns();
    sink.push(Buffer.from('+OK\r\n'), 0);
    sink.push(Buffer.from('+OK\r\n'), 0);
    sink.end('end');
    const parts: Buffer[] = [];
    p.far.on('data', (c: Buffer) => parts.push(c));
    await once(p.far, 'end');
    expect(Buffer.concat(parts).toString()).toBe('+OK\r\n+OK\r\n');

    const q = await pair();
    const prev = cleanup;
    cleanup = () => (prev(), q.close());
    const rst = new SocketSink(q.near, { written: () => {} }, () => reset(q.near));
    rst.coalesceTurns();
    rst.push(Buffer.from('+A\r\n'), 0);
    expect(q.near.writableCorked).toBe(1);
    reset(q.near);
    expect(q.writes()).toBe(1); // uncorked into the kernel before the RST
  });
});
