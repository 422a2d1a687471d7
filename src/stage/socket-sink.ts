import type net from 'node:net';
import type { ByteSink } from '../stage/types.js';
import type { EndKind } from './types.js';

/** Who hears of each write: the direction's path (an object of the connection's, not a closure of its own). */
export interface WriteReport {
  /** Bytes up to stream offset `endOffset` (one past the last) were written to the socket at `nowNs`. */
  written(endOffset: number, nowNs: number): void;
}

/**
 * The end of a direction's chain: writes to the socket and counts the stream offset written, for
 * the tap's delivery stamps. A run of chunks handed on together (a delay line's due batch) goes
 * out corked, in one write.
 */
export class SocketSink implements ByteSink {
  offset = 0;
  private batching = false;
  /**
   * Framed connections: a stage hands on each frame by itself (a pipeline of a hundred replies is
   * a hundred pushes in one read's turn), and each write is a system call. With this on, a run of
   * pushes in one turn goes out corked, in one write when the turn ends (process.nextTick).
   * Unframed connections push one chunk per read and never pay for it.
   */
  private coalescing = false;
  private corked = false;
  /** The socket is still dialing (holdUntilReady): its writes are not reported until it can send them. */
  private unready = false;

  constructor(
    private readonly socket: net.Socket,
    private readonly report: WriteReport,
    private readonly onEnd: (kind: EndKind) => void,
  ) {}

  push(chunk: Buffer, nowNs: number): void {
    this.offset += chunk.length;
    const s = this.socket;
    if (!s.destroyed && !s.writableEnded) {
      if (this.coalescing && !this.corked) {
        this.corked = true;
        s.cork();
        process.nextTick(this.uncork);
      }
      s.write(chunk);
    }
    if (!this.batching && !this.unready) this.report.written(this.offset, nowNs);
  }

  /**
   * A socket still dialing (Redis's TCP connect, then its TLS handshake) queues what is written to
   * it: nothing has reached the peer. Those writes are reported when `ready` fires, at its time, so
   * the tap's sent stamp (serverUs starts there) leaves the dial out: a TLS upstream's handshake
   * was counted as the first command's server time.
   */
  holdUntilReady(ready: 'connect' | 'secureConnect', nowNs: () => number): void {
    this.unready = true;
    this.socket.once(ready, () => {
      this.unready = false;
      if (this.offset > 0) this.report.written(this.offset, nowNs());
    });
  }

  /** From now on, pushes of one turn go out in one write (see `coalescing`). */
  coalesceTurns(): void {
    this.coalescing = true;
  }

  private readonly uncork = (): void => {
    if (!this.corked) return;
    this.corked = false;
    this.socket.uncork();
  };

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
    if (!this.unready) this.report.written(this.offset, nowNs);
  }

  end(kind: EndKind): void {
    this.uncork(); // what was pushed goes before the FIN or RST, as it did uncorked
    this.onEnd(kind);
  }
}

/**
 * Closes with a RST where one can be sent. Not after end(): while that shutdown is pending libuv
 * refuses the reset (EINVAL) and Node then drops the handle without closing it, leaking the fd and
 * never emitting 'close'. Not on unix sockets: they have no RST (resetAndDestroy throws).
 */
export function reset(socket: net.Socket): void {
  // Bytes a coalescing sink holds corked were written before the reset: they go first, as they
  // would have uncorked.
  while (socket.writableCorked > 0) socket.uncork();
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
