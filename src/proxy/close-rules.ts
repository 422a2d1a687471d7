import type net from 'node:net';
import type { PartitionWindow } from '../link/partition.js';
import { reset } from '../stage/socket-sink.js';
import type { EndKind, Scheduler } from '../stage/types.js';
import type { StagedBytes } from './backpressure.js';
import type { DirectionPath } from './direction-path.js';
import type { Framing } from './framing.js';

/** After a FIN, how long the far side may keep its half open before both sides are closed. */
const LINGER_MS = 30_000;

/**
 * How a proxied connection ends (connection.ts owns one). FIN and RST travel behind the data, as on
 * a network: a side's end reaches the other socket once what was pending before it is delivered
 * (the path's sink calls finish()). A FIN goes on as a FIN unless the far side failed (RST, EPIPE);
 * then it becomes a reset, never just a FIN. A stage may close the connection, and so may the end of
 * a partition whose sender gives up. The connection is closed once both sockets are.
 */
export class CloseRules {
  private closed = false;
  private closedPromise: Promise<void> | undefined;
  private settleClosed: (() => void) | undefined;
  private linger: NodeJS.Timeout | undefined;
  /** The client gets a reset at a set time (Redis refused the dial): no FIN before it. */
  private resetPending = false;
  /** A side failed (RST, EPIPE): the other side gets a reset after its data, never just a FIN. */
  private clientFailed = false;
  private upstreamFailed = false;

  constructor(
    private readonly client: net.Socket,
    private readonly upstream: net.Socket,
    private readonly up: DirectionPath,
    private readonly down: DirectionPath,
    /** Where Redis's bytes go in (the down path or a frame chain's reply side), so its end too. */
    private readonly framing: Framing,
    /** Bytes the stages of one direction hold (frame chain included), not the socket's: the connection. */
    private readonly held: StagedBytes,
    private readonly scheduler: Scheduler,
    /** Once, when both sockets are closed: after the stages are destroyed and `closed` settled. */
    private readonly onClosed: () => void,
  ) {}

  /** What a stage's `closed` gives: made on first use, settled when the connection is closed. */
  closedOnce(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return (this.closedPromise ??= new Promise<void>((resolve) => (this.settleClosed = resolve)));
  }

  /** A stage asked to close: FIN after what the chains hold, or RST on both sides now. */
  closeFromStage(kind: EndKind): void {
    const now = this.scheduler.clock.nowNs();
    if (kind === 'reset') {
      this.destroyStages();
      reset(this.client);
      reset(this.upstream);
      return;
    }
    this.up.end('end', now);
    this.down.end('end', now);
  }

  /**
   * At the end of `window`: true when it took bytes of this connection and the sender gives up
   * instead of resending (`then: reset`, or longer than Linux retransmits).
   */
  givesUpAfter(window: PartitionWindow): boolean {
    for (const line of [this.up.link, this.down.link]) {
      const f = line.partitionFlight;
      if (f !== undefined && f.window === window && f.lost && (window.then === 'reset' || f.gaveUp())) return true;
    }
    return false;
  }

  /**
   * During `window`: when this connection's sender gives up on what the partition took (tcp_retries2,
   * before the heal), the earlier of its directions'; undefined when neither does.
   */
  giveUpAtNs(window: PartitionWindow): number | undefined {
    let atNs: number | undefined;
    for (const line of [this.up.link, this.down.link]) {
      const f = line.partitionFlight;
      const at = f !== undefined && f.window === window ? f.giveUpAtNs : undefined;
      if (at !== undefined && (atNs === undefined || at < atNs)) atNs = at;
    }
    return atNs;
  }

  /** Redis refused the dial: the client gets a reset at `atNs`, and no FIN before it. */
  resetAt(atNs: number): void {
    this.resetPending = true;
    this.scheduler.schedule(atNs, () => reset(this.client));
  }

  /**
   * `socket` failed (RST, EPIPE) after the dial: what was on its way to it is dropped, and its
   * reset goes to the other side behind that side's data.
   */
  failed(socket: net.Socket): void {
    if (socket === this.client) {
      this.clientFailed = true;
      this.down.destroy();
      this.up.end('reset', this.scheduler.clock.nowNs());
      // Its FIN went up already: a reset still has to follow, or a half-open upstream waits forever.
      if (this.upstream.writableEnded) this.finish(this.upstream, 'reset');
      return;
    }
    this.upstreamFailed = true;
    // The reply side first: the up chain's destroy takes a frame chain's reply side with it.
    this.framing.endReplies('reset', this.scheduler.clock.nowNs());
    this.up.destroy();
    // Redis closed (FIN, already passed down) and then refused more bytes: on a network the
    // client's next segment would draw a RST, so a half-open client must not wait for the linger.
    if (this.client.writableEnded) this.finish(this.client, 'reset');
  }

  /** An end reached `socket`, behind the data before it. */
  finish(socket: net.Socket, kind: EndKind): void {
    if (socket.destroyed) return;
    const peerFailed = socket === this.client ? this.upstreamFailed : this.clientFailed;
    if (kind === 'end' && !peerFailed) {
      socket.end();
      // If the far side never closes its half, do not hold the connection forever.
      this.linger ??= setTimeout(() => this.destroy(), LINGER_MS).unref();
    } else {
      reset(socket);
    }
  }

  /** Each socket's 'close': the connection is closed when both are, and not before. */
  maybeClosed(): void {
    if (this.closed) return;
    if (this.client.destroyed && this.upstream.destroyed) {
      this.closed = true;
      if (this.linger) clearTimeout(this.linger);
      this.destroyStages();
      this.settleClosed?.();
      this.onClosed();
      return;
    }
    // One side is gone for good: once the other has nothing left to receive, close it too. Unless
    // that side's FIN was read: it is on its way through the chain (a slow_close may hold it), and
    // finish() passes it on when it arrives.
    const upIdle = this.up.link.queued === 0 && this.held.pending('up') === 0 && !this.client.readableEnded;
    const downIdle = this.down.link.queued === 0 && this.held.pending('down') === 0 && !this.upstream.readableEnded;
    if (this.client.destroyed && upIdle && !this.upstream.destroyed && this.upstream.writableEnded) return;
    if (this.client.destroyed && upIdle && !this.upstream.writableEnded) this.upstream.end();
    if (this.upstream.destroyed && downIdle && !this.client.writableEnded && !this.resetPending) this.client.end();
    this.linger ??= setTimeout(() => this.destroy(), LINGER_MS).unref();
  }

  /** Closes both sides now. */
  destroy(): void {
    this.destroyStages();
    this.client.destroy();
    this.upstream.destroy();
  }

  /** Drops what the chains hold and leaves the sockets as they are (a failed dial, a reset). */
  destroyStages(): void {
    this.up.destroy();
    this.down.destroy();
  }
}
