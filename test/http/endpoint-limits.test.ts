import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpEndpoint, type HttpLimits } from '../../src/http/endpoint.js';
import { readJson, sendJson } from '../../src/http/json.js';
import { Router } from '../../src/http/router.js';

const LIMITS: HttpLimits = { maxConnections: 3, headersTimeoutMs: 300, requestTimeoutMs: 600 };
/** How long /slow takes to answer: longer than the request timeout, which must not cut an answer. */
const SLOW_ANSWER_MS = 900;

/** A socket to the endpoint, and everything it receives until it closes. */
function open(port: number, send: string): { socket: net.Socket; answer: Promise<string> } {
  const socket = net.connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  socket.write(send);
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString()));
  return { socket, answer: new Promise((r) => socket.once('close', () => r(text))) };
}

describe('HttpEndpoint limits: what one client may hold', () => {
  let endpoint: HttpEndpoint | undefined;
  afterEach(async () => {
    await endpoint?.close();
  });

  async function start(): Promise<number> {
    endpoint = new HttpEndpoint({
      router: new Router([
        {
          path: '/ok',
          methods: {
            GET: (_req, res) => sendJson(res, 200, { ok: true }),
            PUT: async (req, res) => sendJson(res, 200, await readJson(req, 1000)),
          },
        },
        {
          path: '/slow',
          methods: {
            GET: (_req, res) => {
              res.writeHead(200, { 'content-type': 'text/plain' });
              res.write('first ');
              setTimeout(() => res.end('last'), SLOW_ANSWER_MS);
            },
          },
        },
      ]),
      flag: '--control',
      access: {},
      classify: () => ({ status: 500, reason: 'boom' }),
      errorBody: (_status, reason) => ({ error: reason }),
      limits: LIMITS,
    });
    await endpoint.listen({ kind: 'tcp', host: '127.0.0.1', port: 0 });
    return Number(endpoint.address.slice(endpoint.address.lastIndexOf(':') + 1));
  }

  it('unfinished requests get a 408 once the headers time out, past the connection cap new ones get a 503 at once, and the endpoint serves again', async () => {
    const port = await start();
    const slow = Array.from({ length: LIMITS.maxConnections }, () => open(port, `GET /ok HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-A:`));
    await Promise.all(slow.map((s) => new Promise((r) => s.socket.once('connect', r))));
    const t0 = Date.now();
    const over = open(port, `GET /ok HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    // Not closed unanswered: Node's fetch left a request on such a socket pending forever.
    expect(await over.answer).toMatch(/^HTTP\/1\.1 503 [^]*\{"error":"Service Unavailable: 3 control connections are open; try again"\}$/);
    expect(Date.now() - t0).toBeLessThan(LIMITS.headersTimeoutMs);
    for (const s of slow) {
      const answer = await s.answer;
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/\{"error":"Request Timeout: the request was not in within 300 ms \(its headers\)[^"]*"\}$/);
    }
    expect(Date.now() - t0).toBeLessThan(LIMITS.headersTimeoutMs * 3);
    // The endpoint counts a connection until its 'close', a moment after the client's own.
    await vi.waitFor(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/ok`);
      expect(await res.json()).toEqual({ ok: true });
    });
  });

  it('a body that does not come in time gets a 408; an answer that takes longer than the request timeout is not cut', async () => {
    const port = await start();
    const body = open(port, `PUT /ok HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 100\r\n\r\n{"a":`);
    expect(await body.answer).toMatch(/^HTTP\/1\.1 408 /);
    const slow = open(port, `GET /slow HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(await slow.answer).toMatch(/^HTTP\/1\.1 200 [\s\S]*first [\s\S]*last/);
  });
  it('close drains: an answer under way finishes and its connection closes; an idle one and new ones are closed at once', async () => {
    // A Prometheus scrape or a /stats read as the proxy stops got a reset: close() cut every connection.
    const port = await start();
    const slow = open(port, `GET /slow HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await vi.waitFor(() => expect(slow.socket.bytesRead).toBeGreaterThan(0));
    // A kept-alive connection with no request under way does not hold the close up.
    const idle = open(port, `GET /ok HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await vi.waitFor(() => expect(idle.socket.bytesRead).toBeGreaterThan(0));
    const t0 = Date.now();
    const closed = endpoint!.close();
    expect(await idle.answer).toMatch(/\{"ok":true\}$/);
    expect(Date.now() - t0).toBeLessThan(SLOW_ANSWER_MS);
    // Whole: the headers, then both parts of the chunked body, and the connection closed after it.
    expect(await slow.answer).toMatch(/^HTTP\/1\.1 200 [^]*first [^]*last\r\n0\r\n\r\n$/);
    await closed;
    const late = open(port, `GET /ok HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    expect(await late.answer).toBe('');
    endpoint = undefined;
  });
});
