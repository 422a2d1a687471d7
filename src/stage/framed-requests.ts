/**
 * The client's requests, framed and waiting in order for the frame stages to decide each one. The
 * connection's one request framer is here: the tap is handed each frame as it is cut, whether or
 * not the chain still queues them.
 */
import { commandKind, helloProtocol } from '../resp/command-kind.js';
import { requestCommandName } from '../resp/request-frame.js';
import { RequestFramer } from '../resp/request-framer.js';
import { ByteWindow } from './byte-window.js';
import { buildRequestInfo } from './request-info.js';
import type { FramedTap, RequestInfo } from './types.js';

export interface FramedRequest {
  info: RequestInfo;
  /** What goes to Redis if forwarded: gap bytes before the frame (blank lines) and the frame. */
  wire: Buffer;
  clientEnd: number;
  kind: number;
  hello: number;
  /** An empty request (FrameSink.empty) came after the previous frame: it ends a pending skip. */
  afterEmpty: boolean;
}

export interface FramedRequestsOptions {
  /** The client stream offset of the first byte pushed here. */
  clientBase: number;
  tap?: FramedTap;
  /** The stream is not valid RESP (the owner then calls takeAll()). */
  onDesync: () => void;
  /** The request being framed holds more than `maxHeldBytes` here (the owner may call takeAll(); if not, asked again next chunk). */
  onTooLong: () => void;
  /** @default FRAMED_REQUEST_MAX_BYTES */
  maxHeldBytes?: number;
}

/**
 * The most bytes of one request not yet framed whole that are held for the frame stages (they see
 * a request only whole): Redis's default `proto-max-bulk-len`, so no argument a default Redis runs
 * turns the stages off. Past it the connection's stages turn off and its bytes pass as they come.
 */
export const FRAMED_REQUEST_MAX_BYTES = 512 * 1024 * 1024;

export class FramedRequests {
  /** Framed, not yet decided, oldest first. */
  readonly queue: FramedRequest[] = [];
  /** Bytes of the queue's `wire`s, for backpressure. */
  pendingBytes = 0;
  private queueing = true;
  private readonly hasTap: boolean;
  private readonly framer: RequestFramer;
  private readonly bytes = new ByteWindow();
  private framedEnd = 0;
  /** When the chunk being framed was pushed (the tap's arrival stamp of its requests). */
  private pushNs = 0;
  /** An empty request was framed since the last frame (FramedRequest.afterEmpty). */
  private emptySeen = false;
  private pushed = 0;
  private readonly maxHeld: number;
  private readonly onTooLong: () => void;
  private readonly tap: FramedTap | undefined;
  /** The framer lost the stream (told to the tap once queueing stops: takeAll). */
  private desynced = false;

  constructor(o: FramedRequestsOptions) {
    const tap = o.tap;
    this.tap = tap;
    this.maxHeld = o.maxHeldBytes ?? FRAMED_REQUEST_MAX_BYTES;
    this.onTooLong = o.onTooLong;
    this.framer = new RequestFramer(
      {
        frame: (f) => {
          const name = requestCommandName(f);
          tap?.request(f, name, o.clientBase + f.end, this.pushNs);
          if (!this.queueing) return;
          const wire = this.bytes.slice(this.framedEnd, f.end);
          const bytes = wire.subarray(f.start - this.framedEnd);
          this.framedEnd = f.end;
          this.queue.push({
            info: buildRequestInfo(-1, bytes, f.inline, name, false),
            wire,
            clientEnd: o.clientBase + f.end,
            kind: commandKind(name, f),
            hello: helloProtocol(f),
            afterEmpty: this.emptySeen,
          });
          this.emptySeen = false;
          this.pendingBytes += wire.length;
        },
        desync: () => {
          this.desynced = true;
          // While queueing the chain still frames and matches for the tap, until it stops (takeAll).
          if (!this.queueing) tap?.requestsDesynced(this.framer);
          o.onDesync();
        },
        empty: () => {
          tap?.emptyRequest();
          this.emptySeen = true;
        },
      },
      tap?.requestFramer,
    );
    this.hasTap = tap !== undefined;
  }

  /** Client bytes, in order. Once takeAll() has run they are framed for the tap alone. */
  push(chunk: Buffer, nowNs: number): void {
    this.pushNs = nowNs;
    this.pushed += chunk.length;
    if (!this.queueing) {
      // The tap still counts the commands (and the unparsed bytes) from this framer.
      if (this.hasTap) this.framer.push(chunk);
      return;
    }
    this.bytes.push(chunk);
    this.framer.push(chunk);
    if (!this.queueing) return;
    this.bytes.dropBefore(this.framedEnd);
    if (this.pushed - this.framedEnd > this.maxHeld) this.onTooLong();
  }

  /** Bytes held here: the queue's and those not framed yet (a request being framed, or all after a desync). */
  get heldBytes(): number {
    return this.pendingBytes + this.pushed - this.framedEnd;
  }

  /**
   * Client stream bytes pushed so far, counted from `clientBase`, the chunk being pushed included:
   * where the bytes handed on at a fall back from inside push() end (the framer's offset is still
   * the chunk's start there).
   */
  get pushedBytes(): number {
    return this.pushed;
  }

  /** The oldest request, decided: out of the queue. */
  shift(): FramedRequest {
    const r = this.queue.shift()!;
    this.pendingBytes -= r.wire.length;
    return r;
  }

  /** Drops every queued request (a reset loses them, as on a network). */
  clear(): void {
    this.queue.length = 0;
    this.pendingBytes = 0;
  }

  /**
   * Stops queueing: returns every request not yet decided, then the rest of the stream as it came,
   * for the owner to pass on unchanged. A desync is the tap's from here.
   */
  takeAll(): Buffer {
    this.queueing = false;
    if (this.desynced) this.tap?.requestsDesynced(this.framer);
    const parts = this.queue.map((r) => r.wire);
    parts.push(this.bytes.takeFrom(this.framedEnd));
    this.clear();
    return Buffer.concat(parts);
  }
}
