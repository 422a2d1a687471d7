/**
 * Writes the trace (format: trace-format.ts) without ever slowing the traffic it records.
 *
 * The proxy calls onEvent() on its event loop, between forwarding bytes, so onEvent only encodes one line
 * (one JSON.stringify; its cost: docs/measurements.md) and appends it to a string buffer. The buffer goes to disk in
 * one write per 64 KiB or per 25 ms, through a single fs.WriteStream (libuv does the I/O off the loop;
 * queued writes are merged with writev). Nothing here waits for the disk.
 *
 * Bounds: once the next line would take the file past `maxBytes`, recording stops for good: a `truncated`
 * line is written, one log line says so, and every later event is counted and dropped. The same happens
 * if the disk falls behind by more than `maxPendingBytes` or a write fails. Traffic never stops.
 */
import { closeSync, constants, createWriteStream, fchmodSync, fstatSync, openSync, type WriteStream } from 'node:fs';
import { nowUs, realClock, type Clock } from '../clock.js';
import type { TapEvent } from '../stats/types.js';
import { VERSION } from '../version.js';
import { createKeyHasher, type KeyHasher } from './key-hash.js';
import {
  encodeEnd,
  encodeEvent,
  encodeHeader,
  encodeLinkChange,
  encodeNodeLink,
  encodeTruncated,
  type KeyMode,
  type TraceLink,
  type TruncationReason,
} from './trace-format.js';

export interface RecorderOptions {
  /**
   * Trace file, created with mode 0600 (it describes an application's traffic). Never through a
   * symlink, and an existing file only with `overwrite`.
   */
  path: string;
  /** Replace an existing file (still never through a symlink). @default false */
  overwrite?: boolean;
  /** Bound on the header and event lines; the trailers add at most 256 bytes. @default 256 MiB */
  maxBytes?: number;
  /** 'hashed': store a keyed hash of each command's first key. @default 'none' */
  keys?: KeyMode;
  /** Secret for the key hashes. @default 32 random bytes, never written anywhere */
  hashKey?: Buffer;
  /** The link when recording starts. */
  link: TraceLink;
  /** Flags that move the link without link lines (--rtt-wave, --rtt-series): written in the header. */
  linkMoves?: string[];
  /** The clock the proxy stamps events with. @default realClock */
  clock?: Clock;
  /** Unwritten bytes tolerated before recording stops because the disk cannot keep up. @default 32 MiB */
  maxPendingBytes?: number;
  /** Where the one-line notices go (without a prefix, like the proxy's log). @default stderr, "redis-rtt: " first */
  log?: (line: string) => void;
}

export const DEFAULT_RECORDER = {
  // 256mb as the units table reads it (1 mb = 1e6 bytes): --record-max-bytes's default, which reads it from here.
  maxBytes: 256_000_000,
  keys: 'none' as KeyMode,
  maxPendingBytes: 32 * 1024 * 1024,
  flushBytes: 64 * 1024,
  flushIntervalMs: 25,
};

export interface RecordingSummary {
  /** Bytes in the file, trailers included. */
  bytes: number;
  /** Event lines written. */
  events: number;
  /** Events seen after recording stopped. */
  dropped: number;
  truncated: boolean;
  reason?: TruncationReason;
}

export interface Recorder {
  onEvent(e: TapEvent): void;
  /** Only with keys 'hashed': give it to the tap, which hashes each command's first key. */
  keyHash?: KeyHasher;
  /** Records a link change (PUT /link) so the analysis knows which RTT each round trip paid. */
  linkChanged(link: TraceLink): void;
  /** Cluster mode: one node's link (at its listener's start, then on every change). */
  nodeLinkChanged(node: { upstream: string; listen: string }, link: TraceLink): void;
  /** Flushes, writes the end line and closes the file. Idempotent. */
  close(): Promise<RecordingSummary>;
}

/** Opens the file at once (a bad path fails here, synchronously) and writes the header. */
export function createRecorder(options: RecorderOptions): Recorder {
  return new TraceRecorder(options);
}

class TraceRecorder implements Recorder {
  readonly keyHash?: KeyHasher;
  private readonly clock: Clock;
  private readonly t0Us: number;
  private readonly keys: KeyMode;
  private readonly maxBytes: number;
  private readonly maxPendingBytes: number;
  private readonly log: (line: string) => void;
  private readonly stream: WriteStream;
  private buffer = '';
  private timer: NodeJS.Timeout | undefined;
  private bytes = 0;
  private events = 0;
  private dropped = 0;
  private stopped: TruncationReason | undefined;
  private closing: Promise<RecordingSummary> | undefined;
  private writeError: Error | undefined;
  private warnedMalformed = false;

  constructor(o: RecorderOptions) {
    this.clock = o.clock ?? realClock;
    this.t0Us = nowUs(this.clock);
    this.keys = o.keys ?? DEFAULT_RECORDER.keys;
    this.maxBytes = o.maxBytes ?? DEFAULT_RECORDER.maxBytes;
    this.maxPendingBytes = o.maxPendingBytes ?? DEFAULT_RECORDER.maxPendingBytes;
    this.log = o.log ?? ((line) => process.stderr.write(`redis-rtt: ${line}\n`));
    if (this.keys === 'hashed') this.keyHash = createKeyHasher(o.hashKey);
    const fd = openTraceFile(o.path, o.overwrite === true);
    this.stream = createWriteStream('', { fd, highWaterMark: DEFAULT_RECORDER.flushBytes });
    this.stream.on('error', (err) => {
      this.writeError = err;
      this.stop('write-error', `recording to ${o.path} failed (${err.message}); traffic continues`);
    });
    this.append(encodeHeader(new Date(), this.keys, o.link, `redis-rtt ${VERSION}`, o.linkMoves), true);
  }

  onEvent(e: TapEvent): void {
    if (this.stopped !== undefined || this.closing) {
      this.dropped++;
      return;
    }
    let line: string | undefined;
    try {
      line = encodeEvent(e, this.t0Us, this.keys);
    } catch {
      // A malformed event must cost one line of the recording, never the proxy.
      line = undefined;
    }
    if (line === undefined) {
      this.dropped++;
      if (!this.warnedMalformed) this.log('recording skipped a malformed event (counted as dropped in the end line)');
      this.warnedMalformed = true;
    } else if (this.append(line, false)) this.events++;
    else this.dropped++;
  }

  linkChanged(link: TraceLink): void {
    if (this.stopped === undefined && !this.closing) this.append(encodeLinkChange(this.relUs(), link), false);
  }

  nodeLinkChanged(node: { upstream: string; listen: string }, link: TraceLink): void {
    const line = encodeNodeLink(this.relUs(), node.upstream, node.listen, link);
    if (line !== undefined && this.stopped === undefined && !this.closing) this.append(line, false);
  }

  close(): Promise<RecordingSummary> {
    this.closing ??= this.finish();
    return this.closing;
  }

  private async finish(): Promise<RecordingSummary> {
    if (this.timer) clearTimeout(this.timer);
    if (!this.writeError) {
      const end = encodeEnd({ atUs: this.relUs(), events: this.events, dropped: this.dropped, bytes: this.bytes });
      this.buffer += `${end}\n`;
      this.bytes += end.length + 1;
      this.flush();
    }
    await new Promise<void>((resolve) => {
      if (this.stream.destroyed) return resolve();
      this.stream.once('close', () => resolve());
      this.stream.end();
    });
    const summary: RecordingSummary = { bytes: this.bytes, events: this.events, dropped: this.dropped, truncated: this.stopped !== undefined };
    if (this.stopped !== undefined) summary.reason = this.stopped;
    return summary;
  }

  /** Buffers one line; false (and recording stops) when it would pass the bound. Lines are ASCII. */
  private append(line: string, force: boolean): boolean {
    const size = line.length + 1;
    if (!force && this.bytes + size > this.maxBytes) {
      this.stop('max-bytes', `recording stopped at ${this.bytes} bytes (--record-max-bytes ${this.maxBytes}); traffic continues`);
      return false;
    }
    if (!force && this.stream.writableLength + this.buffer.length > this.maxPendingBytes) {
      this.stop('disk-slow', `recording stopped at ${this.bytes} bytes: the disk fell ${this.maxPendingBytes} bytes behind; traffic continues`);
      return false;
    }
    this.buffer += `${line}\n`;
    this.bytes += size;
    if (this.buffer.length >= DEFAULT_RECORDER.flushBytes) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), DEFAULT_RECORDER.flushIntervalMs).unref();
    return true;
  }

  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.buffer === '' || this.stream.destroyed || this.stream.writableEnded) return;
    this.stream.write(this.buffer);
    this.buffer = '';
  }

  private stop(reason: TruncationReason, message: string): void {
    if (this.stopped !== undefined) return;
    this.stopped = reason;
    if (reason !== 'write-error') {
      const line = encodeTruncated({ atUs: this.relUs(), bytes: this.bytes, reason });
      this.buffer += `${line}\n`;
      this.bytes += line.length + 1;
      this.flush();
    }
    this.log(message);
  }

  private relUs(): number {
    return nowUs(this.clock) - this.t0Us;
  }
}

/**
 * O_NOFOLLOW refuses a symlink as the last path component (ELOOP); without overwrite, O_EXCL
 * refuses anything that exists (EEXIST), a symlink included, so `--record link.trace` can never
 * truncate the file a link points to. An overwritten regular file gets mode 0600 too.
 */
function openTraceFile(path: string, overwrite: boolean): number {
  const { O_WRONLY, O_CREAT, O_EXCL, O_TRUNC, O_NOFOLLOW } = constants;
  const fd = openSync(path, O_WRONLY | O_CREAT | O_NOFOLLOW | (overwrite ? O_TRUNC : O_EXCL), 0o600);
  try {
    if (fstatSync(fd).isFile()) fchmodSync(fd, 0o600);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}
