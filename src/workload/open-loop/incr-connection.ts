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
 * client costs a command object, a promise and a timer per command (ioredis: most of the driver's
 * CPU at 20k/s, docs/open-loop.md); this one writes a prebuilt buffer per batch and counts
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
    socket.on('data', (chunk: Buffer) => this.reader.push(chunk));
    socket.on('error', (err) => this.fail(`connection error: ${err.message}`));
    socket.on('close', () => this.fail('the connection closed'));
    socket.setTimeout(replyTimeoutMs, () => {
      if (this.head < this.inFlight.length) this.fail(`no reply within ${replyTimeoutMs} ms`);
    });
  }

  /** Connects (and authenticates), before any timing. */
  static async open(o: IncrConnectionOptions): Promise<IncrConnection> {
    const socket = net.connect(connectOptions(o.endpoint));
    socket.setNoDelay(true);
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
      if (o.password !== undefined) await authenticate(socket, o.password);
    } catch (err) {
      socket.destroy();
      throw new NetworkError(`could not connect to ${formatEndpoint(o.endpoint)}: ${(err as Error).message}`, (err as NodeJS.ErrnoException).code);
    }
    socket.removeAllListeners('error');
    return new IncrConnection(socket, o.key, o.replyTimeoutMs);
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

/** AUTH with the password alone (the default user), as ioredis sends it; +OK or a typed failure. */
async function authenticate(socket: net.Socket, password: string): Promise<void> {
  socket.write(`*2\r\n$4\r\nAUTH\r\n$${Buffer.byteLength(password)}\r\n${password}\r\n`);
  let line = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      line += chunk.toString('latin1');
      const end = line.indexOf('\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      if (line.slice(0, end) === '+OK') resolve();
      else reject(new Error(`AUTH replied ${line.slice(0, end)}`));
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}
