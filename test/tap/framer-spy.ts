import { vi } from 'vitest';
import { ReplyFramer } from '../../src/resp/reply-framer.js';
import { RequestFramer } from '../../src/resp/request-framer.js';

export interface FramedBytes {
  requests: number;
  replies: number;
}

/**
 * Counts the bytes pushed into every request framer and every reply framer from now until
 * `vi.restoreAllMocks()`: how many times a connection framed its streams.
 */
export function spyOnFramers(): FramedBytes {
  const n = { requests: 0, replies: 0 };
  const req = RequestFramer.prototype.push;
  const rep = ReplyFramer.prototype.push;
  vi.spyOn(RequestFramer.prototype, 'push').mockImplementation(function (this: RequestFramer, chunk: Buffer) {
    n.requests += chunk.length;
    req.call(this, chunk);
  });
  vi.spyOn(ReplyFramer.prototype, 'push').mockImplementation(function (this: ReplyFramer, chunk: Buffer) {
    n.replies += chunk.length;
    rep.call(this, chunk);
  });
  return n;
}
