import type net from 'node:net';
import type { Clock } from '../clock.js';

/** The --max-connections refusal is logged at most once per this. */
const REFUSED_LOG_INTERVAL_NS = 1e9;

/**
 * --max-connections, kept by the listener for every client it accepts, libuv's and the rest of a
 * burst (Node's own `maxConnections` sees only libuv's). A client beyond the cap is closed at once,
 * and that is logged at most once a second, on the scheduler's clock so a test can step through
 * the window.
 *
 * A client counts until its FIN or reset reaches the proxy, not until the proxied connection has
 * closed: that close waits for the FIN to cross the link to Redis and Redis's close to come back,
 * a round trip or more after the client left, and a client that closed and dialed again at once was
 * refused meanwhile (one client at a time, --max-connections 1, 20 ms each way: 8 of 10 refused),
 * where a Redis that its FIN reaches before its next SYN would take it. A client that half-closes
 * stops counting at its FIN too; its reply still comes.
 */
export class ConnectionCap {
  /** Clients closed at once because `max` live connections existed, since start: the log's count. */
  refused = 0;
  /** `refused` at the last resetRefused(): the log counts since start, /stats since the reset. */
  private refusedAtReset = 0;
  private refusedLoggedNs = -Infinity;
  /** Clients admitted whose socket has neither ended nor closed. */
  private connected = 0;

  constructor(
    /** 0 or undefined: no cap. */
    private readonly max: number | undefined,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
  ) {}

  /** Whether a cap is set (/stats has `connections.refused` only then). */
  get capped(): boolean {
    return !!this.max;
  }

  /** Refused since start or the last resetRefused(): /stats' `connections.refused`. */
  get refusedSinceReset(): number {
    return this.refused - this.refusedAtReset;
  }

  /** Counts /stats' refusals from here (POST /reset); the log's count goes on from start. */
  resetRefused(): void {
    this.refusedAtReset = this.refused;
  }

  /** Whether `socket` may join the clients connected; if not, it is closed and counted here. */
  admits(socket: net.Socket): boolean {
    const max = this.max;
    if (!max) return true;
    if (this.connected < max) {
      this.hold(socket);
      return true;
    }
    socket.destroy();
    this.refused++;
    const nowNs = this.clock.nowNs();
    if (nowNs - this.refusedLoggedNs >= REFUSED_LOG_INTERVAL_NS) {
      this.refusedLoggedNs = nowNs;
      this.log(`--max-connections ${max} reached: refused a client (${this.refused} so far)`);
    }
    return false;
  }

  /** Counts `socket` until its client's end or close: whichever comes first frees the slot. */
  private hold(socket: net.Socket): void {
    this.connected++;
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      this.connected--;
    };
    socket.once('end', release);
    socket.once('close', release);
  }
}
