import type net from 'node:net';

/** What a connection's stages hold per direction, not its sockets (the connection answers). */
export interface StagedBytes {
  pending(d: 'up' | 'down'): number;
}

/**
 * A connection's high-water rule: reading from a side pauses while what is pending for the other
 * side (the stages' bytes plus the socket's buffer) is past `highWaterBytes`, and resumes under
 * half of it. So a slow reader pushes back on Redis's output buffer, not the proxy's.
 */
export class Backpressure {
  private clientPaused = false;
  /** The proxy is stopping (listener.ts, drain()): the client is not read again. */
  private clientHeld = false;
  private upstreamPaused = false;
  /** listenForDrain() ran. */
  private drainHeard = false;

  constructor(
    private readonly client: net.Socket,
    private readonly upstream: net.Socket,
    private readonly highWaterBytes: number,
    /** Bytes the stages of one direction hold (not the socket's): the connection, asked per read. */
    private readonly held: StagedBytes,
  ) {}

  /** After a client read went up: pause the client if too much waits for Redis. */
  afterUp(): void {
    if (this.held.pending('up') + this.upstream.writableLength <= this.highWaterBytes) return;
    this.clientPaused = true;
    this.client.pause();
    this.listenForDrain();
  }

  /** After a Redis read went down: pause Redis if too much waits for the client. */
  afterDown(): void {
    if (this.held.pending('down') + this.client.writableLength <= this.highWaterBytes) return;
    this.upstreamPaused = true;
    this.upstream.pause();
    this.listenForDrain();
  }

  /** The proxy is stopping: no more requests from the client; what it sent already goes on. */
  holdClient(): void {
    if (this.clientHeld) return;
    this.clientHeld = true;
    this.client.pause();
  }

  /** Something left a chain or a socket buffer: resume a paused side that is under half now. */
  relieve(): void {
    const low = this.highWaterBytes / 2;
    if (this.clientPaused && !this.clientHeld && this.held.pending('up') + this.upstream.writableLength < low) {
      this.clientPaused = false;
      this.client.resume();
    }
    if (this.upstreamPaused && this.held.pending('down') + this.client.writableLength < low) {
      this.upstreamPaused = false;
      this.upstream.resume();
    }
  }

  /**
   * From the first pause on, a socket's drain may be what lets a paused side read again. Not
   * before: relieve() acts only on a paused side, and a set-up that adds no listener it does not
   * need is less work in a burst of them (docs/precision.md, "The 50-client maxima").
   */
  private listenForDrain(): void {
    if (this.drainHeard) return;
    this.drainHeard = true;
    const relieve = (): void => this.relieve();
    this.client.on('drain', relieve);
    this.upstream.on('drain', relieve);
  }
}
