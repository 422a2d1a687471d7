import type http from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyError, readJson, readJsonObject } from '../../src/http/json.js';
import { isJsonObject } from '../../src/validation/schema.js';

/** A request body as Node hands it over: chunks, then end (or a close without end). */
function body(chunks: (string | Buffer)[], end: 'end' | 'close' = 'end'): { req: http.IncomingMessage; stream: PassThrough } {
  const stream = new PassThrough();
  queueMicrotask(() => {
    for (const c of chunks) stream.write(c);
    if (end === 'end') stream.end();
    else stream.destroy();
  });
  // An IncomingMessage always has its headers; these announce no length.
  return { req: Object.assign(stream, { headers: {} }) as unknown as http.IncomingMessage, stream };
}

async function reason(p: Promise<unknown>): Promise<{ status: number; reason: string; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BodyError);
  const e = err as BodyError;
  return { status: e.status, reason: e.reason, message: e.message };
}

describe('readJson', () => {
  it('parses a body split across chunks, any JSON value', async () => {
    expect(await readJson(body(['{"rtt', 'Us": 1', '200}']).req, 100)).toEqual({ rttUs: 1200 });
    expect(await readJson(body(['[1,2]']).req, 100)).toEqual([1, 2]);
    expect(await readJson(body(['42']).req, 100)).toBe(42);
  });

  it('takes exactly the limit, and refuses one byte more with 413 without reading the rest', async () => {
    const exact = JSON.stringify({ k: 'x'.repeat(10) }); // 18 bytes
    expect(exact.length).toBe(18);
    expect(await readJson(body([exact]).req, 18)).toEqual({ k: 'x'.repeat(10) });
    const over = body([exact.slice(0, 10), exact.slice(10), ' ']);
    expect(await reason(readJson(over.req, exact.length))).toEqual({ status: 413, reason: 'too-large', message: 'body larger than 18 bytes' });
    expect(over.stream.isPaused()).toBe(true);
    // The limit counts bytes, not characters.
    expect(await reason(readJson(body(['"\u00e9\u00e9"']).req, 5))).toMatchObject({ status: 413 });
    expect(await readJson(body(['"\u00e9\u00e9"']).req, 6)).toBe('\u00e9\u00e9');
  });

  it('an empty body is EOF, as Go reports it; bad JSON names the parse error', async () => {
    expect(await reason(readJson(body([]).req, 100))).toEqual({ status: 400, reason: 'empty', message: 'EOF' });
    expect(await reason(readJson(body(['  \n']).req, 100))).toMatchObject({ reason: 'empty' });
    expect(await reason(readJson(body(['{"a": 1']).req, 100))).toMatchObject({ status: 400, reason: 'not-json', message: expect.stringMatching(/JSON/) });
  });

  it('a client that goes away mid-body rejects, with no answer to give', async () => {
    const err = await readJson(body(['{"a"'], 'close').req, 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(BodyError);
  });
});

describe('readJsonObject', () => {
  it('takes an object and refuses every other JSON value with 400 not-object', async () => {
    expect(await readJsonObject(body(['{"a":1}']).req, 100)).toEqual({ a: 1 });
    for (const text of ['[]', 'null', '42', '"s"', 'true']) {
      expect(await reason(readJsonObject(body([text]).req, 100)), text).toEqual({ status: 400, reason: 'not-object', message: 'expected a JSON object' });
    }
  });

  it('isJsonObject is the one check', () => {
    expect([{}, { a: 1 }].map(isJsonObject)).toEqual([true, true]);
    expect([[], null, 1, 's', undefined].map(isJsonObject)).toEqual([false, false, false, false, false]);
  });
});
