import type net from 'node:net';
import { dialRedis, readyEvent } from '../redis/dial.js';
import type { StageFactory, Timer } from '../stage/types.js';
import { DirectionPath, type ClientStream } from './direction-path.js';
import { handshakeLossNs } from '../link/loss-model.js';
import type { StagedConnection } from './proxy-stages.js';
import type { ConnectionOptions } from './connection-options.js';
import { Backpressure } from './backpressure.js';
import { CloseRules } from './close-rules.js';
import { Framing } from './framing.js';
import { synGiveUpNs, synHealNs, type PartitionWindow } from '../link/partition.js';
import { ConnectionParts } from './connection-parts.js';
import { StageContext } from './stage-context.js';
import { UpstreamDial } from './upstream-dial.js';

export type { ConnectionOptions };

/**
 * One client connection and its own upstream connection, joined by one path per direction
 * (direction-path.ts; docs/architecture.md): the link first, then any byte stages, and a frame
 * chain ahead of both once a frame stage reached the connection (framing.ts). The tap only looks.
 * FIN and RST travel behind the data, as on a network (close-rules.ts). Reading from a side
 * pauses when what is pending for the other side passes the high-water mark, so a slow reader
 * pushes back on Redis's output buffer, not the proxy's.
 */
export class ProxiedConnection implements StagedConnection, ClientStream {
  readonly upstream: net.Socket;
  /**
   * The paths, the framing, the high-water rule and the close rules, until the last close lets
   * go of them (release()). Every callback of ours reaches them through here, never by a variable
   * of its own: on Node 24 and 26 a socket, and what its callbacks reach, outlives young-generation
   * collections until a full one, so a closed connection that held on to its parts had them all
   * promoted, and each scavenge under connection churn copied thousands of them
   * (docs/precision.md, "Closed connections and the scavenger").
   */
  private parts: ConnectionParts | undefined;
  /** Its place among the listener's live connections (live-set.ts). */
  liveIndex = -1;
  /** The dial to Redis: its timer and its failures (upstream-dial.ts). */
  private dial: UpstreamDial | undefined;
  /** Accepted in a partition that outlasts its client's SYN retries: the reset when its connect would fail. */
  private synGiveUp: Timer | undefined;
  /** The client's FIN has come: an EPIPE after it says the client closed its socket, not that something failed. */
  private clientFinned = false;

  /** Loss's share of the handshake: 0 on a link without loss (no draw is made). */
  private handshakeLossNs(): number {
    const up = this.o.link.lossPath('up');
    const down = this.o.link.lossPath('down');
    return up.rate > 0 || down.rate > 0 ? handshakeLossNs(up, down) : 0;
  }

  /** The proxy's connection id (as in /connections). */
  get id(): number {
    return this.o.id;
  }

  constructor(
    readonly client: net.Socket,
    private readonly o: ConnectionOptions,
  ) {
    const clock = o.scheduler.clock;
    const acceptedNs = clock.nowNs();
    // Accepted during a partition: the kernel answered the SYN, a real one would not have; the
    // client's first byte waits for its SYN retry after the heal (partition.ts).
    const cut = o.link.partition;
    const held = cut !== undefined && acceptedNs < cut.endNs ? cut : undefined;
    const openNs = held ? synHealNs(acceptedNs, held) : acceptedNs;
    client.setNoDelay(true);
    const meter = o.upstreamMeter;
    const upstream = (this.upstream = dialRedis(o.upstream, {
      tls: o.upstreamTls,
      allowHalfOpen: true,
      onTls: meter && ((raw, s) => meter.track(raw, s)),
      onData: (chunk) => this.upstreamRead(chunk),
    }));
    const context = new StageContext(
      o.id,
      clock,
      (kind) => this.parts?.closeRules.closeFromStage(kind),
      () => this.parts?.closeRules.closedOnce() ?? Promise.resolve(),
    );
    // Before the paths: their writes relieve it. It asks this connection what the stages hold, a
    // method rather than a closure of its own, since it asks on every read.
    const pressure = new Backpressure(client, upstream, o.highWaterBytes, this);

    const tls = o.clientTls;
    // The link's own functions, shared by every connection (link-state.ts, sampleNsOf).
    const linkOptions = { scheduler: o.scheduler, bandwidthBps: o.link.bandwidthBps, arrivalWaitNs: o.readWaitNs };
    const late = o.onLateness;
    // A reply's round trip carries the added time of the request chunk before it, as well as its own.
    const added = o.onAdded;
    const replyAdded = o.onReplyAdded;
    let requestAddedNs = 0;
    const up = new DirectionPath({
      direction: 'up',
      context,
      socket: upstream,
      link: {
        ...linkOptions,
        onAdded:
          added &&
          ((ns) => {
            requestAddedNs = ns;
            added(ns);
          }),
        onLateness: late && ((ns) => late(ns, 'up')),
        sampleDelayNs: o.link.sampleNsOf.up,
        // A real client pays a SYN/SYN-ACK round trip before its first byte can leave, and the
        // SYN timer for each lost try.
        notBeforeNs: o.handshake ? openNs + o.link.rttNowUs() * 1000 + this.handshakeLossNs() : held && openNs,
        loss: o.link.lossPath('up'),
      },
      tap: o.tap,
      tls,
      clientStream: this,
      pressure,
      onEnd: (kind) => this.parts?.closeRules.finish(this.upstream, kind),
    });
    // The client's first bytes may come before Redis answered the dial: sent once it did.
    up.sink.holdUntilReady(readyEvent({ tls: o.upstreamTls }), () => clock.nowNs());
    const down = new DirectionPath({
      direction: 'down',
      context,
      socket: client,
      link: {
        ...linkOptions,
        onAdded: replyAdded && ((ns) => replyAdded(ns, requestAddedNs)),
        onLateness: late && ((ns) => late(ns, 'down')),
        sampleDelayNs: o.link.sampleNsOf.down,
        loss: o.link.lossPath('down'),
      },
      tap: o.tap,
      tls,
      pressure,
      onEnd: (kind) => this.parts?.closeRules.finish(this.client, kind),
    });
    const framing = new Framing({
      context,
      scheduler: o.scheduler,
      upDelayNs: o.link.sampleNsOf.up,
      up,
      down,
      tap: o.tap,
      tapArrivalNs: tls && tls.arrivalNs.bind(tls),
      log: o.log,
    });
    // Before the stages below: a stage may close the connection through its context when created.
    const closeRules = new CloseRules(client, upstream, up, down, framing, this, o.scheduler, () => {
      this.dial?.stop();
      this.o.tap?.close(clock.nowNs());
      this.o.onClosed(this);
      this.release();
    });
    this.parts = new ConnectionParts(up, down, framing, pressure, closeRules);
    if (held) {
      this.partition(held, o.link.rtoNs());
      const giveUpNs = synGiveUpNs(acceptedNs, held);
      if (giveUpNs !== undefined) {
        this.synGiveUp = o.scheduler.schedule(giveUpNs, () => {
          o.log(`conn ${o.id}: accepted in the partition, its SYN retries ran out before the heal: reset, as its connect would have timed out`);
          this.reset();
        });
      }
    }
    for (const d of ['up', 'down'] as const) for (const f of o.stages?.chain(d) ?? []) this.addStage(f, Infinity);
    for (const f of o.stages?.chain('frame') ?? []) if (f.kind === 'frame') framing.add(f, Infinity, true);
    this.listen(acceptedNs);
  }

  /**
   * After the last close: let go of the parts, and of the tap and client TLS the options hold
   * (the options stay reachable from the sockets' callbacks). Nothing calls in after this: the
   * connection has left the live set, and both sockets are closed.
   */
  private release(): void {
    if (this.synGiveUp) this.o.scheduler.cancel(this.synGiveUp);
    this.parts = undefined;
    this.o.tap = undefined;
    this.o.clientTls = undefined;
  }

  /** A read from Redis (dialRedis's onData): into the reply side, as the client's reads go up. */
  private upstreamRead(chunk: Buffer): void {
    const p = this.parts;
    if (p === undefined) return;
    const o = this.o;
    const now = o.scheduler.clock.nowNs();
    o.onRead?.(now, p.up.writtenNs);
    p.framing.downIn.push(chunk, now);
    p.framing.afterReply();
    p.pressure.afterDown();
  }

  /**
   * The two sockets' events: reads into the chains, ends, the client's errors and closes; the
   * dial's timer and failures are upstream-dial.ts's. The sockets keep these callbacks after the
   * close, so they reach the parts through `parts` only.
   */
  private listen(acceptedNs: number): void {
    const { client, o } = this;
    const clock = o.scheduler.clock;
    client.on('data', (chunk: Buffer) => {
      const p = this.parts;
      if (p === undefined) return;
      const now = clock.nowNs();
      o.onRead?.(now, p.down.writtenNs);
      p.up.entry.push(chunk, now);
      p.pressure.afterUp();
    });

    client.on('end', () => {
      this.clientFinned = true;
      this.parts?.up.end('end', clock.nowNs());
    });
    this.upstream.on('end', () => this.parts?.framing.endReplies('end', clock.nowNs()));
    client.on('error', (err: NodeJS.ErrnoException) => {
      // A unix socket client that closed (FIN) before all it was sent: the write fails at once with
      // EPIPE, where over TCP it goes out and the peer's reset ends it silently. It was logged for every
      // TLS client that closed there (redis-cli --tls -s, and the start-up's hop measurement), for the
      // close_notify its FIN is answered with. Still a failure for the close rules (a reset upstream).
      if (!(err.code === 'EPIPE' && this.clientFinned)) o.log(`conn ${o.id}: client ${err.code ?? err.message}`);
      this.parts?.closeRules.failed(client);
    });
    this.dial = new UpstreamDial(this.upstream, client, o, acceptedNs, () => this.parts?.closeRules);
    const maybeClosed = (): void => this.parts?.closeRules.maybeClosed();
    client.on('close', maybeClosed);
    this.upstream.on('close', maybeClosed);
  }

  /**
   * Splices a stage into this connection's chain; `indexInChain` counts the user's stages only.
   * False when a frame stage cannot reach this connection: it was never framed and no frame
   * boundary is known (no tap, or a tap that stopped following the stream).
   */
  addStage(stage: StageFactory, indexInChain: number): boolean {
    return this.parts?.addStage(stage, indexInChain) ?? false;
  }

  removeStage(stage: StageFactory): void {
    this.parts?.removeStage(stage, this.o.scheduler.clock.nowNs());
  }

  /** Stage names on this connection, per chain (the link and client TLS included); none once closed. */
  stageNames(): { up: string[]; down: string[]; frame: string[] } {
    return this.parts?.stageNames() ?? { up: [], down: [], frame: [] };
  }

  /** A partition starts: both directions hold what it takes until their sender's resend (partition.ts). */
  partition(window: PartitionWindow, rtoNs: number): void {
    this.parts?.partition(window, rtoNs);
  }

  /** At the end of `window`: true when this connection's sender gives up instead of resending (close-rules.ts). */
  givesUpAfter(window: PartitionWindow): boolean {
    return this.parts?.closeRules.givesUpAfter(window) ?? false;
  }

  /** During `window`: when this connection's sender gives up before the heal (close-rules.ts), if it does. */
  giveUpAtNs(window: PartitionWindow): number | undefined {
    return this.parts?.closeRules.giveUpAtNs(window);
  }

  /** Resets both sides now, dropping what the chains hold (a sender that gave up). */
  reset(): void {
    this.parts?.closeRules.closeFromStage('reset');
  }

  /** Bytes pending delivery in both directions (all stages plus socket buffers). */
  get pendingBytes(): number {
    return this.pending('up') + this.pending('down') + this.upstream.writableLength + this.client.writableLength;
  }

  /** The proxy is stopping (listener.ts, drain()): the client's further bytes are not read. */
  stopReading(): void {
    this.parts?.pressure.holdClient();
  }

  /**
   * Nothing left to deliver (listener.ts, drain()): no byte held in either direction (stages, socket buffers),
   * and no request the tap follows still waits for its reply. A closed connection is drained.
   */
  get drained(): boolean {
    const tap = this.o.tap;
    return this.pendingBytes === 0 && (tap === undefined || tap.outstanding === 0 || !tap.framable);
  }

  /** Closes both sides now (proxy shutdown). */
  destroy(): void {
    this.parts?.closeRules.destroy();
  }

  /** The up path's ClientStream (direction-path.ts): the framing's, once it exists. */
  beforeRequest(): void {
    this.parts?.framing.beforeRequest();
  }

  clientOffsetAt(endOffset: number): number {
    return this.parts?.framing.clientOffsetAt(endOffset) ?? endOffset;
  }

  /** Bytes the stages of one direction hold, not the socket's; none once closed. */
  pending(d: 'up' | 'down'): number {
    return this.parts?.pending(d) ?? 0;
  }
}
