import type net from 'node:net';
import { formatEndpoint as describe } from '../endpoint.js';
import { describeFailure, dialRedis } from '../redis/dial.js';
import { FRAME_CHAIN_NAME } from '../stage/frame-chain.js';
import type { ConnectionContext, StageFactory } from '../stage/types.js';
import { DirectionPath } from './direction-path.js';
import { handshakeLossNs } from '../link/loss-model.js';
import type { StagedConnection } from './proxy-stages.js';
import type { ConnectionOptions } from './connection-options.js';
import { Backpressure } from './backpressure.js';
import { CloseRules } from './close-rules.js';
import { Framing } from './framing.js';
import { PartitionFlight, synHealNs, type PartitionWindow } from '../link/partition.js';
import { StageContext } from './stage-context.js';

export type { ConnectionOptions };

/**
 * One client connection and its own upstream connection, joined by one path per direction
 * (direction-path.ts; docs/architecture.md): the link first, then any byte stages, and a frame
 * chain ahead of both once a frame stage reached the connection (framing.ts). The tap only looks.
 * FIN and RST travel behind the data, as on a network (close-rules.ts). Reading from a side
 * pauses when what is pending for the other side passes the high-water mark, so a slow reader
 * pushes back on Redis's output buffer, not the proxy's.
 */
export class ProxiedConnection implements StagedConnection {
  readonly upstream: net.Socket;
  private readonly up: DirectionPath;
  private readonly down: DirectionPath;
  /** When bytes last went to Redis and to the client (-1: not yet): the self-report's read-wait cap. */
  private upWrittenNs = -1;
  private downWrittenNs = -1;
  /** Frame stages and the frame chain, once one reached this connection (framing.ts). */
  private readonly framing: Framing;
  private readonly context: ConnectionContext;
  private readonly pressure: Backpressure;
  private readonly closeRules: CloseRules;
  /** Until Redis answered the dial (connect, or the TLS handshake). */
  private connectTimer: NodeJS.Timeout | undefined;
  private everConnected = false;

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
    this.upstream = dialRedis(o.upstream, {
      tls: o.upstreamTls,
      allowHalfOpen: true,
      onTls: meter && ((raw, s) => meter.track(raw, s)),
      onData: (chunk) => this.upstreamRead(chunk),
    });
    this.context = new StageContext(o.id, clock, (kind) => this.closeRules.closeFromStage(kind), () => this.closeRules.closedOnce());
    const pending = (d: 'up' | 'down'): number => this.pending(d);
    // Before the paths: their `written` callbacks relieve it.
    this.pressure = new Backpressure(client, this.upstream, o.highWaterBytes, pending);

    const tap = o.tap;
    const late = o.onLateness;
    const tls = o.clientTls;
    const linkOptions = { scheduler: o.scheduler, bandwidthBps: () => o.link.bandwidthBps(), arrivalWaitNs: o.readWaitNs };
    // A reply's round trip carries the added time of the request chunk before it, as well as its own.
    const added = o.onAdded;
    const replyAdded = o.onReplyAdded;
    let requestAddedNs = 0;
    this.up = new DirectionPath({
      direction: 'up',
      context: this.context,
      socket: this.upstream,
      link: {
        ...linkOptions,
        onAdded:
          added &&
          ((ns) => {
            requestAddedNs = ns;
            added(ns);
          }),
        onLateness: late && ((ns) => late(ns, 'up')),
        sampleDelayNs: () => o.link.sampleNs('up'),
        // A real client pays a SYN/SYN-ACK round trip before its first byte can leave, and the
        // SYN timer for each lost try.
        notBeforeNs: o.handshake ? openNs + o.link.rttUs * 1000 + this.handshakeLossNs() : held && openNs,
        loss: o.link.lossPath('up'),
      },
      tap: tap && { seen: (c, t) => tap.upChunk(c, t), written: (e, t) => tap.upWritten(e, t) },
      tls,
      beforeChunk: () => this.framing.beforeRequest(),
      tapOffset: (end) => this.framing.clientOffsetAt(end),
      written: (_end, ns) => {
        this.upWrittenNs = ns;
        this.pressure.relieve();
      },
      onEnd: (kind) => this.closeRules.finish(this.upstream, kind),
    });
    this.down = new DirectionPath({
      direction: 'down',
      context: this.context,
      socket: client,
      link: {
        ...linkOptions,
        onAdded: replyAdded && ((ns) => replyAdded(ns, requestAddedNs)),
        onLateness: late && ((ns) => late(ns, 'down')),
        sampleDelayNs: () => o.link.sampleNs('down'),
        loss: o.link.lossPath('down'),
      },
      tap: tap && { seen: (c, t) => tap.downChunk(c, t), written: (e, t) => tap.downWritten(e, t) },
      tls,
      written: (_end, ns) => {
        this.downWrittenNs = ns;
        this.pressure.relieve();
      },
      onEnd: (kind) => this.closeRules.finish(client, kind),
    });
    const framing = (this.framing = new Framing({
      context: this.context,
      scheduler: o.scheduler,
      upDelayNs: () => o.link.sampleNs('up'),
      up: this.up,
      down: this.down,
      tap,
      tapArrivalNs: tls && (() => tls.arrivalNs()),
      log: o.log,
    }));
    // Before the stages below: a stage may close the connection through its context when created.
    this.closeRules = new CloseRules(client, this.upstream, this.up, this.down, framing, pending, o.scheduler, () => {
      this.clearConnectTimer();
      o.tap?.close(clock.nowNs());
      o.onClosed(this);
    });
    if (held) this.partition(held, o.link.rtoNs());
    for (const d of ['up', 'down'] as const) for (const f of o.stages?.chain(d) ?? []) this.addStage(f, Infinity);
    for (const f of o.stages?.chain('frame') ?? []) if (f.kind === 'frame') framing.add(f, Infinity, true);
    this.listen(acceptedNs);
  }

  /** A read from Redis (dialRedis's onData): into the reply side, as the client's reads go up. */
  private upstreamRead(chunk: Buffer): void {
    const o = this.o;
    const now = o.scheduler.clock.nowNs();
    o.onRead?.(now, this.upWrittenNs);
    this.framing.downIn.push(chunk, now);
    this.framing.afterReply();
    this.pressure.afterDown();
  }

  /**
   * The two sockets' events, and the upstream's connect timer: reads into the chains, ends, errors
   * (a refused dial resets the client when a direct one would have been refused) and closes.
   */
  private listen(acceptedNs: number): void {
    const { client, o, up, pressure, framing, closeRules } = this;
    const clock = o.scheduler.clock;
    client.on('data', (chunk: Buffer) => {
      const now = clock.nowNs();
      o.onRead?.(now, this.downWrittenNs);
      up.entry.push(chunk, now);
      pressure.afterUp();
    });

    client.on('end', () => up.end('end', clock.nowNs()));
    this.upstream.on('end', () => framing.endReplies('end', clock.nowNs()));
    client.on('error', (err: NodeJS.ErrnoException) => {
      o.log(`conn ${o.id}: client ${err.code ?? err.message}`);
      closeRules.failed(client);
    });
    this.upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (this.upstream.connecting || !this.everConnected) {
        o.log(`conn ${o.id}: upstream ${describe(o.upstream)} failed: ${describeFailure(err)}`);
        closeRules.destroyStages();
        if (err.code === 'ECONNREFUSED') {
          // Redis is down. This client was accepted already, so it cannot be refused: a reset when a
          // direct client would have had its refusal (one RTT after its SYN) is the nearest thing;
          // the clients after it are refused by the kernel (refusal-watch.ts).
          o.onRefused?.();
          closeRules.resetAt(acceptedNs + o.link.rttUs * 1000);
          return;
        }
        // Nothing reached Redis: tell the client at once rather than after a fake delay.
        client.destroy();
        return;
      }
      o.log(`conn ${o.id}: upstream ${err.code ?? err.message}`);
      closeRules.failed(this.upstream);
    });
    // A plain timer from the dial, not the socket's idle timeout: that one also costs a bound
    // function, a 'timeout' listener and a refresh on every read and write (docs/precision.md).
    this.connectTimer = setTimeout(() => {
      this.connectTimer = undefined;
      if (this.everConnected) return;
      // A plaintext Redis reads a ClientHello as an unfinished inline command and waits.
      const what = o.upstreamTls && !this.upstream.connecting ? 'finished no TLS handshake (plaintext Redis?)' : 'did not answer';
      o.log(`conn ${o.id}: upstream ${describe(o.upstream)} ${what} within ${o.connectTimeoutMs} ms`);
      this.upstream.destroy();
      client.destroy();
    }, o.connectTimeoutMs).unref();
    this.upstream.on(o.upstreamTls ? 'secureConnect' : 'connect', () => {
      this.everConnected = true;
      this.clearConnectTimer();
    });
    const maybeClosed = (): void => closeRules.maybeClosed();
    client.on('close', maybeClosed);
    this.upstream.on('close', maybeClosed);
  }

  private clearConnectTimer(): void {
    if (this.connectTimer === undefined) return;
    clearTimeout(this.connectTimer);
    this.connectTimer = undefined;
  }

  /**
   * Splices a stage into this connection's chain; `indexInChain` counts the user's stages only.
   * False when a frame stage cannot reach this connection: it was never framed and no frame
   * boundary is known (no tap, or a tap that stopped following the stream).
   */
  addStage(stage: StageFactory, indexInChain: number): boolean {
    if (stage.kind === 'byte') {
      // Among the byte stages: the link, TLS and the frame chain's request side keep their places.
      const path = stage.direction === 'up' ? this.up : this.down;
      path.chain.add(stage, path.stageAt(indexInChain));
      return true;
    }
    return this.framing.add(stage, indexInChain, false);
  }

  removeStage(stage: StageFactory): void {
    if (stage.kind === 'frame') return this.framing.remove(stage.name);
    const chain = stage.direction === 'up' ? this.up.chain : this.down.chain;
    chain.remove(stage.name, this.o.scheduler.clock.nowNs());
    this.pressure.relieve();
  }

  /** Stage names on this connection, per chain (the link and client TLS included). */
  stageNames(): { up: string[]; down: string[]; frame: string[] } {
    return { up: this.up.chain.names.filter((n) => n !== FRAME_CHAIN_NAME), down: this.down.chain.names, frame: this.framing.stages.map((s) => s.name) };
  }

  /** A partition starts: both directions hold what it takes until their sender's resend (partition.ts). */
  partition(window: PartitionWindow, rtoNs: number): void {
    this.up.link.line.partition(new PartitionFlight(window, rtoNs));
    this.down.link.line.partition(new PartitionFlight(window, rtoNs));
  }

  /** At the end of `window`: true when this connection's sender gives up instead of resending (close-rules.ts). */
  givesUpAfter(window: PartitionWindow): boolean {
    return this.closeRules.givesUpAfter(window);
  }

  /** Resets both sides now, dropping what the chains hold (a sender that gave up). */
  reset(): void {
    this.closeRules.closeFromStage('reset');
  }

  /** Bytes pending delivery in both directions (all stages plus socket buffers). */
  get pendingBytes(): number {
    return this.pending('up') + this.pending('down') + this.upstream.writableLength + this.client.writableLength;
  }

  /** Closes both sides now (proxy shutdown). */
  destroy(): void {
    this.closeRules.destroy();
  }

  /** Bytes the stages of one direction hold (frame chain included), not the socket's. */
  private pending(d: 'up' | 'down'): number {
    if (d === 'up') return this.up.chain.pendingBytes;
    return this.down.chain.pendingBytes + this.framing.downPendingBytes;
  }
}
