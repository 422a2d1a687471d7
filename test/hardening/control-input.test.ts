import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { fakeServer, type FakeServer } from './helpers/fake-server.js';
import { controlRequest, type ControlResponse } from './helpers/http.js';

/** A hang-up comes this long after the partial body (which has reached the endpoint by then), */
const BODY_BEFORE_HANGUP_MS = 10;
/** and after the last one the endpoint has this long to go down: nothing may happen. */
const AFTER_HANGUPS_MS = 50;

/** A 4xx answer with a JSON body `{"error": "..."}` that says what was wrong. */
function expectJsonError(r: ControlResponse, status: number, says: RegExp): void {
  expect(r.status, r.body).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(r.body) as { error?: unknown };
  expect(typeof body.error).toBe('string');
  expect(body.error).toMatch(says);
}

/** Sends raw bytes to the control port and reads until it closes. */
async function rawHttp(address: string, bytes: string | Buffer): Promise<string> {
  const i = address.lastIndexOf(':');
  const s = net.connect({ host: address.slice(0, i), port: Number(address.slice(i + 1)) });
  s.on('error', () => undefined);
  const chunks: Buffer[] = [];
  s.on('data', (d: Buffer) => chunks.push(d));
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.end(bytes);
  await new Promise<void>((r) => s.once('close', () => r()));
  return Buffer.concat(chunks).toString('latin1');
}

describe('malformed control requests get 4xx JSON errors and change nothing', () => {
  let upstream: FakeServer;
  let proxy: RedisRttProxy;
  let at: string;
  beforeAll(async () => {
    upstream = await fakeServer((s) => s.on('data', (d: Buffer) => s.write(d)));
    proxy = await startSingleNodeProxy({ upstream: upstream.address, control: '127.0.0.1:0', link: { rttUs: 1000 }, log: () => undefined });
    at = proxy.controlAddress!;
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  const put = (body: string | Buffer, headers?: Record<string, string>): Promise<ControlResponse> =>
    controlRequest(at, 'PUT', '/link', { body, headers });

  it('bad JSON, non-objects, unknown fields and wrong types: 400 naming the problem', async () => {
    expectJsonError(await put('{"rttUs": 12'), 400, /not valid JSON/);
    expectJsonError(await put(''), 400, /not valid JSON/);
    expectJsonError(await put('\u0000\u00ff garbage'), 400, /not valid JSON/);
    for (const body of ['[]', 'null', '42', '"rttUs"', 'true']) expectJsonError(await put(body), 400, /JSON object/);
    expectJsonError(await put('{"rtt": 5}'), 400, /unknown field.*rtt.*accepted: rttUs/);
    expectJsonError(await put('{"__proto__": {"rttUs": 1}}'), 400, /unknown field/);
    expectJsonError(await put('{"rttUs": "abc"}'), 400, /rttUs.*microseconds/);
    expectJsonError(await put('{"rttUs": -1}'), 400, /rttUs/);
    expectJsonError(await put('{"rttUs": 1e300}'), 400, /rttUs/);
    expectJsonError(await put('{"upUs": null}'), 400, /upUs/);
    expectJsonError(await put('{"jitterUs": [1]}'), 400, /jitterUs/);
    expectJsonError(await put('{"jitterDist": "weird"}'), 400, /jitterDist.*uniform/);
    expectJsonError(await put('{"bandwidthBps": "fast"}'), 400, /bandwidthBps/);
    expectJsonError(await put('{"preset": "mars"}'), 400, /preset.*cross-az/);
    // One listener has no nodes: a selector is refused, not dropped with the change made to the one link.
    expectJsonError(await controlRequest(at, 'PUT', '/link?node=masters', { body: '{"rttUs": 9000}' }), 400, /^\?node= picks nodes in cluster and Sentinel mode; this proxy has one link \(got node=masters\)$/);
    expectJsonError(await controlRequest(at, 'GET', '/link?node=masters'), 400, /^\?node= picks nodes in cluster and Sentinel mode; this proxy has one link \(got node=masters\)$/);
    // None of it touched the link.
    expect(proxy.link()).toMatchObject({ upUs: 500, downUs: 500, jitterUs: 0 });
  });

  it('a body over the limit: 413, and the endpoint keeps serving', async () => {
    const huge = Buffer.alloc(1 << 20, 0x20);
    expectJsonError(await put(huge), 413, /larger than/);
    // Also when the client streams it without a length.
    expectJsonError(await put(huge, { 'transfer-encoding': 'chunked' }), 413, /larger than/);
    expect((await controlRequest(at, 'GET', '/link')).status).toBe(200);
  });

  it('a body announced past the limit: 413 at once, its bytes never waited for', async () => {
    const i = at.lastIndexOf(':');
    const s = net.connect({ host: at.slice(0, i), port: Number(at.slice(i + 1)) });
    s.on('error', () => undefined);
    let answer = '';
    s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    try {
      s.write(`PUT /link HTTP/1.1\r\nHost: ${at}\r\nContent-Length: 99999999999\r\n\r\n{"rttUs": 1`);
      await vi.waitFor(() => expect(answer).toMatch(/^HTTP\/1\.1 413 [\s\S]*\{"error":"body larger than 65536 bytes"\}$/), { timeout: 2000 });
    } finally {
      s.destroy();
    }
  });

  it('unknown route: 404; wrong method: 405', async () => {
    expectJsonError(await controlRequest(at, 'GET', '/nope'), 404, /no such endpoint \/nope/);
    // The hint names every endpoint served (it lacked /events, GET /link and /toxics).
    const hint = (JSON.parse((await controlRequest(at, 'GET', '/nope')).body) as { error: string }).error;
    for (const endpoint of ['GET /', 'GET /events', 'GET /stats', 'GET /metrics', 'GET /connections', 'GET /link', 'PUT /link', 'POST /reset', 'GET /toxics', 'POST /toxics']) {
      expect(hint.split(/; try |, /), hint).toContain(endpoint);
    }
    expectJsonError(await controlRequest(at, 'GET', '//stats'), 404, /no such endpoint/);
    expectJsonError(await controlRequest(at, 'GET', '/stats/../link'), 404, /no such endpoint/);
    expectJsonError(await controlRequest(at, 'DELETE', '/stats'), 405, /method DELETE not allowed on \/stats/);
    expectJsonError(await controlRequest(at, 'POST', '/stats'), 405, /not allowed/);
    expectJsonError(await controlRequest(at, 'GET', '/reset'), 405, /not allowed/);
    expectJsonError(await controlRequest(at, 'PATCH', '/link'), 405, /not allowed/);
  });

  it('raw garbage and broken HTTP on the control port: a 4xx JSON answer, never a crash', async () => {
    for (const bytes of ['\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03', 'GET /stats HTTP/1.1\r\nContent-Length: abc\r\n\r\n', 'NOT-HTTP AT ALL\r\n\r\n', `GET /${'x'.repeat(100_000)} HTTP/1.1\r\nHost: a\r\n\r\n`]) {
      const answer = await rawHttp(at, bytes);
      expect(answer, JSON.stringify(bytes.slice(0, 20))).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(answer).toMatch(/content-type: application\/json/i);
      expect(answer).toMatch(/\{"error":"[^"]+"\}$/);
    }
    // A header flood.
    const flood = `GET /stats HTTP/1.1\r\nHost: a\r\n${'X-A: b\r\n'.repeat(20_000)}\r\n`;
    expect(await rawHttp(at, flood)).toMatch(/^HTTP\/1\.1 431 /);
    expect((await controlRequest(at, 'GET', '/stats')).status).toBe(200);
  });

  it('a client that hangs up mid-body does not take the endpoint down', async () => {
    const i = at.lastIndexOf(':');
    for (let n = 0; n < 5; n++) {
      const s = net.connect({ host: at.slice(0, i), port: Number(at.slice(i + 1)) });
      s.on('error', () => undefined);
      await new Promise<void>((r) => s.once('connect', () => r()));
      s.write('PUT /link HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n{"rttUs": 1');
      await sleep(BODY_BEFORE_HANGUP_MS);
      if (n % 2) s.resetAndDestroy();
      else s.destroy();
    }
    await sleep(AFTER_HANGUPS_MS);
    expect((await controlRequest(at, 'GET', '/link')).status).toBe(200);
    expect(proxy.link()).toMatchObject({ upUs: 500, downUs: 500 });
  });
});

describe('--control-token', () => {
  let upstream: FakeServer;
  let proxy: RedisRttProxy;
  beforeAll(async () => {
    upstream = await fakeServer(() => undefined);
    proxy = await startSingleNodeProxy({ upstream: upstream.address, control: '127.0.0.1:0', controlToken: 's3cret-token', log: () => undefined });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it('every route answers 401 without the token or with a wrong one, and works with it', async () => {
    const at = proxy.controlAddress!;
    const routes: [string, string][] = [['GET', '/stats'], ['GET', '/metrics'], ['GET', '/connections'], ['GET', '/link'], ['PUT', '/link'], ['POST', '/reset'], ['GET', '/nope']];
    for (const [method, path] of routes) {
      const body = method === 'PUT' ? '{"rttUs": 99000}' : undefined;
      expectJsonError(await controlRequest(at, method, path, { body }), 401, /token/);
      expectJsonError(await controlRequest(at, method, path, { body, token: 'wrong' }), 401, /token/);
      expectJsonError(await controlRequest(at, method, path, { body, headers: { authorization: 's3cret-token' } }), 401, /token/);
      // The scheme is read in any case (RFC 7235), the token never.
      expectJsonError(await controlRequest(at, method, path, { body, headers: { authorization: 'bearer S3CRET-TOKEN' } }), 401, /token/);
    }
    expect((await controlRequest(at, 'GET', '/stats', { headers: { authorization: 'bearer s3cret-token' } })).status).toBe(200);
    expect(proxy.link().upUs).toBe(0); // the rejected PUTs changed nothing
    expect((await controlRequest(at, 'GET', '/stats', { token: 's3cret-token' })).status).toBe(200);
    expect((await controlRequest(at, 'PUT', '/link', { token: 's3cret-token', body: '{"rttUs": 2000}' })).status).toBe(200);
    expect(proxy.link()).toMatchObject({ upUs: 1000, downUs: 1000 });
    // The 401 never echoes the expected token.
    const r = await controlRequest(at, 'GET', '/stats', { token: 'wrong' });
    expect(r.body).not.toContain('s3cret-token');
    // The scheme that would pass, as RFC 9110 asks of a 401.
    expect(r.headers['www-authenticate']).toBe('Bearer');
  });
});
