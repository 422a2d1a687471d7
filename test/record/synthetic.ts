/**
 * Builds event lists the way the tap would emit them, with times chosen by hand, so analysis tests can
 * state exact expectations. A Session walks a clock: `rt([...])` sends commands together, Redis answers
 * after `serverUs`, the reply arrives after the link's RTT; `think(us)` advances the client's clock.
 */
import type { CommandEvent, TapEvent } from '../../src/stats/types.js';
import type { TraceLink } from '../../src/record/trace-format.js';
import { parseTrace, type Trace } from '../../src/record/trace-reader.js';

export const LOCAL_LINK: TraceLink = { upUs: 0, downUs: 0, jitterUs: 0, jitterDist: 'uniform', bandwidthBps: 0, lossUp: 0, lossDown: 0, lossBurst: 0, mssBytes: 1448, handshake: true };

export interface CmdSpec {
  name: string;
  argc?: number;
  key?: string;
  reply?: string;
  errorPrefix?: string;
  blocking?: boolean;
}

export class Session {
  nowUs: number;
  /**
   * The recording proxy's TCP handshake: the first round trip's requests reach Redis no sooner than
   * this (open + RTT with handshake: true). Unset: nothing held, as if the client sent after it.
   */
  holdUntilUs?: number;
  private rtIndex = 0;
  constructor(
    readonly events: TapEvent[],
    readonly conn: number,
    startUs: number,
    public linkRttUs = 0,
    readonly serverUs = 50,
  ) {
    this.nowUs = startUs;
    events.push({ type: 'open', conn, atUs: startUs, client: '127.0.0.1:50000' });
  }

  think(us: number): this {
    this.nowUs += us;
    return this;
  }

  /** One round trip carrying `cmds` (sent back to back, 1 us apart). Returns its duration. */
  rt(cmds: Array<string | CmdSpec>): number {
    this.rtIndex++;
    const start = this.nowUs;
    const specs = cmds.map((c) => (typeof c === 'string' ? { name: c } : c));
    const up = this.linkRttUs / 2;
    const heldUs = this.rtIndex === 1 ? (this.holdUntilUs ?? -Infinity) : -Infinity;
    let last = start;
    specs.forEach((s, i) => {
      const arrivedUs = start + i;
      const sentUs = Math.max(arrivedUs, heldUs) + up;
      // Redis starts on the batch once all of it is there (one socket write), then answers in order.
      const firstReplyUs = Math.max(start + (specs.length - 1), heldUs) + up + this.serverUs * (i + 1);
      const deliveredUs = firstReplyUs + this.linkRttUs - up;
      last = Math.max(last, deliveredUs);
      const e: CommandEvent = {
        type: 'command',
        conn: this.conn,
        name: s.name,
        argc: s.argc ?? 2,
        bytesUp: 20,
        bytesDown: 10,
        arrivedUs,
        sentUs,
        firstReplyUs,
        deliveredUs,
        reply: s.reply ?? (s.errorPrefix ? '-' : '$'),
        roundTrip: this.rtIndex,
      };
      if (s.key !== undefined) e.keyHash = s.key;
      if (s.errorPrefix !== undefined) e.errorPrefix = s.errorPrefix;
      if (s.blocking) e.blocking = true;
      this.events.push(e);
    });
    this.nowUs = last;
    return last - start;
  }

  close(afterUs = 0): void {
    this.nowUs += afterUs;
    this.events.push({ type: 'close', conn: this.conn, atUs: this.nowUs });
  }
}

/** Wraps events in a Trace as the reader returns it (complete, no warnings). */
export function traceOf(events: TapEvent[], link: TraceLink = LOCAL_LINK, keys: 'none' | 'hashed' = 'none'): Trace {
  return {
    header: { type: 'header', format: 'redis-rtt-trace', version: 1, startedAt: '2025-01-01T00:00:00.000Z', clock: 'proxy monotonic us', keys, link },
    events,
    links: [],
    end: { atUs: 0, events: events.length, dropped: 0, bytes: 0 },
    warnings: [],
  };
}

/** Round-trips a trace through its text form. */
export function reparse(text: string): Trace {
  return parseTrace(text, 'test.trace');
}
