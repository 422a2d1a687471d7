import type net from 'node:net';
import type { Clock } from '../clock.js';

/** The --max-connections refusal is logged at most once per this. */
const REFUSED_LOG_INTERVAL_NS = 1e9;

/**
 * --max-connections, kept by the listener for every client it accepts, libuv's and the rest of a
 * burst (Node's own `maxConnections` sees only libuv's). A client beyond the cap is closed at once,
 * and that is logged at most once a second, on the scheduler's clock so a test can step through
 * the window.
 */
export class ConnectionCap {
  /** Clients closed at once because `max` live connections existed. */
  refused = 0;
  private refusedLoggedNs = -Infinity;

  constructor(
    /** 0 or undefined: no cap. */
    private readonly max: number | undefined,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
  ) {}

  /** Whether `socket` may join `liveCount` open connections; if not, it is closed and counted here. */
  admits(socket: net.Socket, liveCount: number): boolean {
    const max = this.max;
    if (!max || liveCount < max) return true;
    socket.destroy();
    this.refused++;
    const nowNs = this.clock.nowNs();
    if (nowNs - this.refusedLoggedNs >= REFUSED_LOG_INTERVAL_NS) {
      this.refusedLoggedNs = nowNs;
      this.log(`--max-connections ${max} reached: refused a client (${this.refused} so far)`);
    }
    return false;
  }
}
