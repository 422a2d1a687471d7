/**
 * The dashboard's server-sent events. The window and its timer exist only while a stream is
 * open: the first page starts them, the last one to leave stops them and drops every reading, so
 * a proxy nobody watches does no dashboard work at all. A page that reads too slowly misses
 * events (a stream whose socket buffer is full gets none until it drains) rather than make the
 * proxy hold them.
 */
import type http from 'node:http';
import { realClock, type Clock } from '../clock.js';
import { dashboardEvent } from './event.js';
import { StatsWindow } from './stats-window.js';
import type { DashboardSource } from './types.js';

/** About four events a second. */
export const EVENT_INTERVAL_MS = 250;

/** How long a page waits before it opens the stream again after it ended (the stream's `retry:`). */
export const STREAM_RETRY_MS = 2000;

export interface EventStreamsOptions {
  /** @default EVENT_INTERVAL_MS */
  intervalMs?: number;
  /** @default realClock */
  clock?: Clock;
  /** @default Date.now */
  wallClockMs?: () => number;
  /** Told when a tick throws (the stream stays open). @default none */
  log?: (line: string) => void;
}

export class EventStreams {
  private readonly open = new Set<http.ServerResponse>();
  /** Streams whose socket buffer is full: skipped until 'drain'. */
  private readonly blocked = new Set<http.ServerResponse>();
  private readonly window = new StatsWindow();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The last event sent, for a stream that opens before the next tick. */
  private lastText: string | undefined;

  constructor(
    private readonly source: DashboardSource,
    private readonly o: EventStreamsOptions = {},
  ) {}

  /** Streams open now. */
  get size(): number {
    return this.open.size;
  }

  /** True while the window's timer runs (a stream is open). */
  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Answers GET /events: the stream stays open until the page leaves or close() ends it. */
  accept(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.closed) {
      res.writeHead(503, { 'content-type': 'text/plain' });
      return void res.end('closing\n');
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(`retry: ${STREAM_RETRY_MS}\n\n`);
    req.socket.setNoDelay(true);
    this.open.add(res);
    res.on('close', () => this.leave(res));
    res.on('drain', () => this.blocked.delete(res));
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), this.o.intervalMs ?? EVENT_INTERVAL_MS);
    }
    // The new page gets the latest event at once; the others are not sent an extra one (a reading
    // each), which made N pages that open together cost N readings and N x N events.
    if (this.lastText === undefined) this.tick();
    else if (!res.write(this.lastText)) this.blocked.add(res);
  }

  /**
   * The counters were just reset (POST /reset): the open window starts again from zero now, as
   * docs/counters.md says. Told, not guessed from the next reading: counters that grew past
   * their old values before it looked as if no reset came.
   */
  countersReset(): void {
    this.window.reset((this.o.clock ?? realClock).nowNs());
  }

  /** Ends every stream and refuses new ones (the endpoint is closing). */
  close(): void {
    this.closed = true;
    for (const res of [...this.open]) res.end();
    this.stop();
  }

  private leave(res: http.ServerResponse): void {
    this.open.delete(res);
    this.blocked.delete(res);
    if (this.open.size === 0) this.stop();
  }

  private stop(): void {
    this.open.clear();
    this.blocked.clear();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.lastText = undefined;
    this.window.clear();
  }

  private tick(): void {
    if (this.open.size === 0) return;
    let text: string;
    try {
      const event = dashboardEvent(this.source, this.window, (this.o.clock ?? realClock).nowNs(), (this.o.wallClockMs ?? Date.now)());
      text = `event: stats\ndata: ${JSON.stringify(event)}\n\n`;
      this.lastText = text;
    } catch (err) {
      this.o.log?.(`dashboard: ${(err as Error).message}`);
      return;
    }
    for (const res of this.open) {
      if (this.blocked.has(res)) continue;
      if (!res.write(text)) this.blocked.add(res);
    }
  }
}
