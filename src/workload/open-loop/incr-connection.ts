import net from 'node:net';
import { connectOptions, formatEndpoint, type Endpoint } from '../../endpoint.js';
import { NetworkError } from '../../errors.js';
import type { OpenLoopBatch } from './dispatcher.js';
import { IncrReplyReader } from './incr-replies.js';
import type { BatchAnswered, IncrSender } from './sender.js';

export interface IncrConnectionOptions {
  endpoint: Endpoint;
  /** The counter every command increments. */
  key: string;
  password?: string;
  /** A batch with no reply after this long fails the connection (how a dropped reply is caught). */
  replyTimeoutMs: number;
}

/**
 * A bare RESP2 connection that only sends INCR of one key: the `seq` shape's connection. A general
 * client costs a command object, a promise and a timer per command (ioredis; the profile is in
 * docs/open-loop.md); this one writes a prebuilt buffer per batch and counts
 * integer replies as they stream in, so the driver's loop holds little besides the schedule. It
 * says nothing on connect (no HELLO, no CLIENT SETINFO): only AUTH when a password is given.
 */
export class IncrConnection implements IncrSender {
  answered: BatchAnswered = () => {};
  private readonly reader: IncrReplyReader;
  /** Batches sent and not yet answered, oldest at `head`. */
  private readonly inFlight: OpenLoopBatch[] = [];
  private head = 0;
  /** Replies the oldest batch still waits for, and the first wrong one it got. */
  private left = 0;
  private firstError: string | undefined;
  /** Why the connection can no longer be used; set once. */
  private failure: string | undefined;
  /** One write per batch size: `count` INCRs back to back, built on first use. */
  private readonly writes: Buffer[] = [];
  private readonly one: Buffer;

  private constructor(
    private readonly socket: net.Socket,
    key: string,
    replyTimeoutMs: number,
  ) {
    this.one = Buffer.from(`*2\r\n$4\r\nINCR\r\n$${Buffer.byteLength(key)}\r\n${key}\r\n`);
    this.reader = new IncrReplyReader({ reply: (error) => this.onReply(error), unreadable: (what) => this.fail(`INCR replied with ${what}`) });
    socket.on('error', (err) => this.fail(`connection error: ${err.message}`));
    socket.on('close', () => this.fail('the connection closed'));
    socket.setTimeout(replyTimeoutMs, () => {
      if (this.head < this.inFlight.length) this.fail(`no reply within ${replyTimeoutMs} ms`);
    });
  }

  /** Connects (and authenticates), before any timing. */
  static async open(o: IncrConnectionOptions): Promise<IncrConnection> {
    let connection: IncrConnection | undefined;
    const handshake = new HandshakeReader();
    // Every read lands in one buffer, shared by all connections and read before the callback
    // returns: Node then allocates no Buffer per read (garbage a scavenge would have to clear).
    const onread = {
      buffer: READ_BUFFER,
      callback: (bytes: number, buf: Uint8Array): boolean => {
        if (connection) connection.reader.push(buf, bytes);
        else handshake.push(buf, bytes);
        return true; // keep reading
      },
    };
    const socket = net.connect({ ...connectOptions(o.endpoint), onread });
    socket.setNoDelay(true);
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
      if (o.password !== undefined) {
        socket.write(`*2\r\n$4\r\nAUTH\r\n$${Buffer.byteLength(o.password)}\r\n${o.password}\r\n`);
        const reply = await handshake.line(socket);
        if (reply !== '+OK') throw new Error(`AUTH replied ${reply}`);
      }
    } catch (err) {
      socket.destroy();
      throw new NetworkError(`could not connect to ${formatEndpoint(o.endpoint)}: ${(err as Error).message}`, (err as NodeJS.ErrnoException).code);
    }
    socket.removeAllListeners('error');
    socket.removeAllListeners('close');
    connection = new IncrConnection(socket, o.key, o.replyTimeoutMs);
    return connection;
  }

  send(batch: OpenLoopBatch): void {
    if (this.failure !== undefined) {
      // Answered on a later tick: the caller is still inside its own send loop.
      const why = this.failure;
      process.nextTick(() => this.answered(batch, why));
      return;
    }
    const count = batch.dues.length;
    if (this.head === this.inFlight.length) {
      this.left = count;
      this.firstError = undefined;
    }
    this.inFlight.push(batch);
    this.socket.write((this.writes[count] ??= Buffer.concat(new Array<Buffer>(count).fill(this.one))));
  }

  async close(): Promise<void> {
    this.failure ??= 'closed';
    if (this.socket.destroyed) return;
    await new Promise<void>((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.end();
      setTimeout(() => this.socket.destroy(), 1000).unref();
    });
  }

  private onReply(error: string | undefined): void {
    if (this.head === this.inFlight.length) return this.fail('a reply to no command');
    if (error !== undefined) this.firstError ??= `INCR replied ${error}`;
    if (--this.left > 0) return;
    const batch = this.inFlight[this.head] as OpenLoopBatch;
    this.inFlight[this.head++] = undefined as unknown as OpenLoopBatch;
    if (this.head === this.inFlight.length) {
      this.inFlight.length = 0;
      this.head = 0;
    } else {
      this.left = (this.inFlight[this.head] as OpenLoopBatch).dues.length;
    }
    const firstError = this.firstError;
    this.firstError = undefined;
    this.answered(batch, firstError);
  }

  /** Ends the connection: every batch in flight is answered with the reason. */
  private fail(why: string): void {
    if (this.failure !== undefined && this.head === this.inFlight.length) return;
    this.failure ??= why;
    this.socket.destroy();
    const pending = this.inFlight.slice(this.head);
    this.inFlight.length = 0;
    this.head = 0;
    for (const batch of pending) this.answered(batch, why);
  }
}

/** Where every connection's reads land (see open()); 64 KB, as Node's own read buffer. */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** The AUTH reply (the password alone, the default user, as ioredis sends it): one line. */
class HandshakeReader {
  private text = '';
  private wake: (() => void) | undefined;

  push(buf: Uint8Array, bytes: number): void {
    this.text += Buffer.from(buf.subarray(0, bytes)).toString('latin1');
    this.wake?.();
  }

  /** The first reply line, without its CRLF; fails if the connection fails first. */
  async line(socket: net.Socket): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.wake = () => {
        if (this.text.includes('\r\n')) resolve();
      };
      this.wake();
      socket.once('error', reject);
      socket.once('close', () => reject(new Error('the connection closed during AUTH')));
    });
    return this.text.slice(0, this.text.indexOf('\r\n'));
  }
}
