import type http from 'node:http';
import { ApiError, badRequestBody } from './api-error.js';

const MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: http.ServerResponse, err: ApiError): void {
  sendJson(res, err.status, err.toJSON());
}

export function sendEmpty(res: http.ServerResponse, status: number): void {
  res.writeHead(status);
  res.end();
}

/**
 * The request body as JSON. No content type is required: toxiproxy's README posts with curl -d and
 * none. An empty body reads as Go's decoder reports it (EOF), which is a 400 as in toxiproxy.
 */
export async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(`body larger than ${MAX_BODY_BYTES} bytes`, 413);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw badRequestBody('EOF');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequestBody((err as Error).message);
  }
}
