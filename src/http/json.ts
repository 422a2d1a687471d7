/**
 * JSON in and out of an HTTP endpoint (the proxy's --control, `redis-rtt server`). Each endpoint
 * words its own errors: these throw an HttpError with the status and the plain reason.
 */
import type http from 'node:http';
import { isJsonObject } from '../validation/schema.js';

/** An answer other than success: the status, and the reason the endpoint's error body carries. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    /** Headers the answer must carry (a 405's Allow). @default none */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/**
 * A request body that could not be read as asked. `reason` lets each endpoint word it: toxiproxy's
 * API says "bad request body: EOF" where the control endpoint says "body is not valid JSON".
 */
export class BodyError extends HttpError {
  override name = 'BodyError';
  constructor(
    readonly reason: 'too-large' | 'empty' | 'not-json' | 'not-object',
    message: string,
  ) {
    super(reason === 'too-large' ? 413 : 400, message);
  }
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendEmpty(res: http.ServerResponse, status: number): void {
  res.writeHead(status);
  res.end();
}


/**
 * The request body as JSON, at most `limitBytes` of it. No content type is required: toxiproxy's
 * README posts with `curl -d` and none. Past the limit it stops reading at once (the caller
 * answers 413 and drops the connection) rather than buffer what a client streams.
 */
export function readJson(req: http.IncomingMessage, limitBytes: number): Promise<unknown> {
  // A body announced past the limit is refused before a byte of it (it was waited for, to a 408).
  if (Number(req.headers['content-length']) > limitBytes) return Promise.reject(new BodyError('too-large', `body larger than ${limitBytes} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limitBytes) {
        stop();
        req.pause();
        reject(new BodyError('too-large', `body larger than ${limitBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      const text = Buffer.concat(chunks).toString('utf8');
      // Go's decoder reports an empty body as EOF; toxiproxy answers that with a 400.
      if (text.trim() === '') return reject(new BodyError('empty', 'EOF'));
      try {
        resolve(JSON.parse(text));
      } catch (err) {
        reject(new BodyError('not-json', (err as Error).message));
      }
    };
    const onClose = (): void => {
      stop();
      reject(new Error('the client closed the connection before the body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}

/** readJson for a body that must be a JSON object. */
export async function readJsonObject(req: http.IncomingMessage, limitBytes: number): Promise<Record<string, unknown>> {
  const body = await readJson(req, limitBytes);
  if (!isJsonObject(body)) throw new BodyError('not-object', 'expected a JSON object');
  return body;
}
