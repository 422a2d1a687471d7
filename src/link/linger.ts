import type { DeliverySource } from '../stage/types.js';
import { LingerGate } from './linger-gate.js';
import { TimedLinger } from './timed-linger.js';

export interface LingerOptions {
  /** After a zero-delay delivery (scheduler-options.ts `lingerNs`). */
  lingerNs: number;
  /** Sources (delay lines) delivering at once, past which it does not linger. */
  maxSources: number;
  /** No zero-delay linger until no timed delivery has left for this long. */
  untimedNs: number;
  /** After a timed delivery, until the next read (timed-linger.ts); 0 = never. */
  timedNs: number;
}

/**
 * When the scheduler keeps polling after a delivery, so that the read that usually follows within
 * tens of microseconds does not find the process asleep: for `lingerNs` after a zero-delay one on a
 * link with no delay (while one connection exchanges data, linger-gate.ts), and after a timed one
 * until the next read (timed-linger.ts). The scheduler polls while `hot(now)` and nothing waits.
 */
export class Linger {
  private readonly gate: LingerGate;
  private readonly timed: TimedLinger | undefined;
  /** When a timed delivery last left. */
  private lastTimedNs = -Infinity;
  private hotUntilNs = 0;

  constructor(private readonly o: LingerOptions) {
    this.gate = new LingerGate(o.lingerNs, o.maxSources);
    this.timed = o.timedNs > 0 ? new TimedLinger(o.timedNs) : undefined;
  }

  /** Whether a read now would be the first after a timed delivery (worth a clock read to tell it when). */
  get awaitingRead(): boolean {
    return this.timed !== undefined && this.timed.awaiting;
  }

  /**
   * A read came at `nowNs`. The first after a timed delivery: the timed linger learns when, and
   * ends. Polling on would wait for Redis's reply to a request just written to it, and Linux puts a
   * process woken by a socket write on the writer's CPU when that is busy only with the writer (it
   * expects it to sleep), where Redis would wait for the poll to end (docs/precision.md).
   */
  read(nowNs: number): void {
    const timed = this.timed;
    if (timed === undefined || !timed.awaiting) return;
    timed.activity(nowNs);
    this.hotUntilNs = Math.min(this.hotUntilNs, nowNs);
  }

  /**
   * A zero-delay delivery (itself a read that came in) from `source` at `nowNs`: whether to
   * linger now. Only on links with no delay, and only while one connection exchanges data.
   */
  zeroDelay(nowNs: number, source: DeliverySource): boolean {
    this.read(nowNs);
    const o = this.o;
    if (o.lingerNs <= 0 || nowNs - this.lastTimedNs < o.untimedNs) return false;
    if (!this.gate.allows(nowNs, source)) return false;
    this.hotUntilNs = Math.max(this.hotUntilNs, nowNs + o.lingerNs);
    return true;
  }

  /** A timed delivery left at `nowNs`. */
  timedLeft(nowNs: number): void {
    this.lastTimedNs = nowNs;
  }

  /**
   * A poll turn ended at `endNs`, having fired timed deliveries (`fired`) while at most one
   * connection's timers fire (`fewTimers`): lingers after them when the client follows at once.
   */
  turnEnded(endNs: number, fired: boolean, fewTimers: boolean): void {
    const timed = this.timed;
    if (fired && timed !== undefined && timed.fired(endNs) && fewTimers) {
      this.hotUntilNs = Math.max(this.hotUntilNs, endNs + timed.lingerNs);
    }
  }

  /** Whether to keep polling at `nowNs`. */
  hot(nowNs: number): boolean {
    return nowNs < this.hotUntilNs;
  }
}
