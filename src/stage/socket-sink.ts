import type net from 'node:net';
import type { ByteSink } from '../stage/types.js';
import type { EndKind } from './types.js';

/**
 * The end of a direction's chain: writes to the socket and counts the stream offset written, for
 * the tap's delivery stamps. A run of chunks handed on together (a delay line's due batch) goes
 * out corked, in one write.
 */
export class SocketSink implements ByteSink {
  offset = 0;
  private batching = false;

  constructor(
    private readonly socket: net.Socket,
    private readonly written: (endOffset: number, nowNs: number) => void,
    private readonly onEnd: (kind: EndKind) => void,
  ) {}

  push(chunk: Buffer, nowNs: number): void {
    this.offset += chunk.length;
    const s = this.socket;
    if (!s.destroyed && !s.writableEnded) s.write(chunk);
    if (!this.batching) this.written(this.offset, nowNs);
  }

  /** Several chunks at once (corked); reported written once, after the last. */
  pushMany(chunks: Buffer[], nowNs: number): void {
    const s = this.socket;
    s.cork();
    this.batching = true;
    try {
      for (let i = 0; i < chunks.length; i++) this.push(chunks[i]!, nowNs);
    } finally {
      this.batching = false;
      s.uncork();
    }
    this.written(this.offset, nowNs);
  }

  end(kind: EndKind): void {
    this.onEnd(kind);
  }
}

/**
 * Closes with a RST where one can be sent. Not after end(): while that shutdown is pending libuv
 * refuses the reset (EINVAL) and Node then drops the handle without closing it, leaking the fd and
 * never emitting 'close'. Not on unix sockets: they have no RST (resetAndDestroy throws).
 */
export function reset(socket: net.Socket): void {
  if (socket.writableEnded) {
    socket.destroy();
    return;
  }
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}
