import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError } from '../../../src/errors.js';
import type { OpenLoopBatch } from '../../../src/workload/open-loop/dispatcher.js';
import { IncrConnection } from '../../../src/workload/open-loop/incr-connection.js';

// A scripted server on port 0: what it receives, and what it answers to each read.
let server: net.Server | undefined;
afterEach(() => server?.close());

async function fakeRedis(answer: (received: string, socket: net.Socket) => void): Promise<{ port: number; received: () => string }> {
  let all = '';
  server = net.createServer((socket) => socket.on('data', (d) => answer((all += d.toString('latin1')), socket)));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, received: () => all };
}

function batch(count: number): OpenLoopBatch {
  return { dues: new Array<number>(count).fill(0), conn: 0, sentNs: 0, closedNs: 0, lateTaken: true };
}

describe('IncrConnection', () => {
  it('writes a batch as one pipeline, answers it once all its replies are in, with the first wrong one', async () => {
    const srv = await fakeRedis((all, s) => {
      if (all.length === 3 * 31) s.write(':1\r\n-ERR no\r\n:3\r\n');
    });
    const c = await IncrConnection.open({ endpoint: { kind: 'tcp', host: '127.0.0.1', port: srv.port }, key: 'ol:counter', replyTimeoutMs: 5000 });
    const answers: (string | undefined)[] = [];
    const done = new Promise<void>((resolve) => (c.answered = (_b, err) => (answers.push(err), resolve())));
    c.send(batch(3));
    await done;
    expect(srv.received()).toBe('*2\r\n$4\r\nINCR\r\n$10\r\nol:counter\r\n'.repeat(3));
    expect(answers).toEqual(['INCR replied ERR no']);
    await c.close();
  });

  it('a connection that closes answers what is in flight with the reason, and every later send too', async () => {
    const srv = await fakeRedis((_all, s) => s.destroy());
    const c = await IncrConnection.open({ endpoint: { kind: 'tcp', host: '127.0.0.1', port: srv.port }, key: 'k', replyTimeoutMs: 5000 });
    const answers: (string | undefined)[] = [];
    let wake = (): void => {};
    c.answered = (_b, err) => (answers.push(err), wake());
    await new Promise<void>((resolve) => ((wake = resolve), c.send(batch(1))));
    await new Promise<void>((resolve) => ((wake = resolve), c.send(batch(1))));
    expect(answers).toHaveLength(2);
    expect(answers.every((a) => a !== undefined)).toBe(true);
  });

  it('AUTH: +OK connects, an error reply is a NetworkError that quotes it', async () => {
    const ok = await fakeRedis((all, s) => {
      if (all.endsWith('secret\r\n')) s.write('+OK\r\n');
    });
    const c = await IncrConnection.open({ endpoint: { kind: 'tcp', host: '127.0.0.1', port: ok.port }, key: 'k', password: 'secret', replyTimeoutMs: 5000 });
    expect(ok.received()).toBe('*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n');
    await c.close();
    server?.close();
    const bad = await fakeRedis((_all, s) => s.write('-WRONGPASS invalid username-password pair\r\n'));
    const err = await IncrConnection.open({ endpoint: { kind: 'tcp', host: '127.0.0.1', port: bad.port }, key: 'k', password: 'x', replyTimeoutMs: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toContain('AUTH replied -WRONGPASS');
  });
});
