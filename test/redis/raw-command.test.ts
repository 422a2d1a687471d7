import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rawCommands } from '../../src/redis/index.js';

/** A listener that answers the first bytes it reads with `reply`, written in `pieces` separate writes. */
async function fakeServer(reply: Buffer, pieces: number): Promise<net.Server> {
  const server = net.createServer((s) => {
    s.once('data', async () => {
      const size = Math.ceil(reply.length / pieces);
      for (let at = 0; at < reply.length; at += size) {
        s.write(reply.subarray(at, at + size));
        await new Promise((r) => setImmediate(r));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

let server: net.Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

const portOf = (s: net.Server): number => (s.address() as net.AddressInfo).port;

describe('rawCommands reads replies with the reply framer', () => {
  // 'héllo' is 6 bytes of UTF-8: the text comes back as UTF-8.
  const replies = Buffer.from('+OK\r\n$6\r\nhéllo\r\n*2\r\n:1\r\n*1\r\n$-1\r\n%1\r\n+k\r\n#t\r\n', 'utf8');

  it.each([1, 3, replies.length])('the same replies whole or split in %i writes', async (pieces) => {
    server = await fakeServer(replies, pieces);
    const got = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: portOf(server) }, [['A'], ['B'], ['C'], ['D']], 3000);
    expect(got).toEqual([
      { type: '+', text: 'OK' },
      { type: '$', text: 'héllo' },
      { type: '*', text: null, items: [{ type: ':', text: '1' }, { type: '*', text: null, items: [{ type: '$', text: null }] }] },
      { type: '%', text: null, items: [{ type: '+', text: 'k' }, { type: '#', text: 't' }] },
    ]);
  });

  it('rejects what is not RESP, naming the offset', async () => {
    server = await fakeServer(Buffer.from('+OK\r\nHTTP/1.1 400 Bad Request\r\n'), 1);
    await expect(rawCommands({ kind: 'tcp', host: '127.0.0.1', port: portOf(server) }, [['A'], ['B']], 3000)).rejects.toThrow(/not a RESP reply at byte 5/);
  });
});
