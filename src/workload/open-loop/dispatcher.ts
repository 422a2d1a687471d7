import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { hook, keyPath, NANOSECONDS, parseWith, withMethods } from '../../validation/schema.js';
import { OpenLoopLedger } from './ledger.js';

/** Commands sent together on one connection: one command, or a batch closed by the window. */
export interface OpenLoopBatch {
  /** Absolute intended send times (clock ns) of its commands, in order. */
  dues: number[];
  /** Connection index, set when sent. */
  conn: number;
  /** The clock just before its write: the actual send time. */
  sentNs: number;
  /** When it joined the backlog (closed, or released alone). */
  closedNs: number;
  /** Its commands' lateness is in the ledger (alone, that waits for its send or for no free connection). */
  lateTaken: boolean;
}

export interface DispatcherOptions {
  clock: Clock;
  /** Clock time of the schedule's zero. */
  startNs: number;
  durationNs: number;
  /**
   * Intended send times as offsets from startNs (buildArrivalSchedule). Without one the run is C
   * closed loops: a command is due whenever a connection is free, until the duration ends.
   */
  schedule?: ArrayLike<number>;
  connections: number;
  /** Commands one connection may have in flight: 1, or Infinity for a client that queues by itself (auto-pipelining). */
  inFlightPerConnection: number;
  /** A batch holds the commands due within this long of its first one. 0 sends each command alone. */
  batchWindowNs: number;
  /** A batch closes early once it holds this many. */
  maxBatch: number;
  /**
   * Writes the batch to connection batch.conn; the caller reports the replies with completed().
   * The batch object is reused once completed() is called: keep a copy to hold on to it.
   */
  send(batch: OpenLoopBatch): void;
  /** Width of one backlog-over-time bucket. @default 100 ms */
  bucketNs?: number;
}

const WHOLE = 'a whole number of at least 1';
const whole = z.number({ error: WHOLE }).min(1, { error: WHOLE }).refine(Number.isInteger, { error: WHOLE });
const POSITIVE = 'nanoseconds, above 0';
const SHAPE = {
  clock: withMethods<Clock>(['nowNs'], 'a Clock (an object with nowNs())'),
  startNs: z.number({ error: "a time in nanoseconds on the clock's scale" }),
  durationNs: z.number({ error: POSITIVE }).positive({ error: POSITIVE }),
  schedule: z
    .custom<ArrayLike<number>>((v) => typeof v === 'object' && v !== null && typeof (v as ArrayLike<number>).length === 'number', {
      error: 'send times in nanoseconds from startNs, ascending (buildArrivalSchedule)',
    })
    .optional(),
  connections: whole,
  inFlightPerConnection: z.union([whole, z.literal(Infinity)], { error: `${WHOLE}, or Infinity (a client that queues by itself)` }),
  batchWindowNs: NANOSECONDS,
  maxBatch: whole,
  send: hook<DispatcherOptions['send']>('a function of the batch to write'),
  bucketNs: z.number({ error: POSITIVE }).positive({ error: POSITIVE }).optional(),
} satisfies Record<keyof DispatcherOptions, z.ZodType>;

/**
 * Exported: `new OpenLoopDispatcher({})` was made without a word (0 connections and NaN times: it
 * sent nothing, or a TypeError at the first send). A ConfigError names the key (`OpenLoopDispatcher.maxBatch`).
 */
const DISPATCHER_OPTIONS = z.strictObject(SHAPE, {
  error: (issue) =>
    issue.code === 'unrecognized_keys' ? `a key of OpenLoopDispatcher's options: ${Object.keys(SHAPE).join(', ')}` : "an object of OpenLoopDispatcher's options",
});

/**
 * The open-loop scheduler, pure (the clock is injected, I/O goes through `send`). Commands come due
 * on a schedule fixed in advance; a due command joins the open batch (or is one alone), a closed
 * batch takes any free connection or waits in one shared FIFO backlog. Nothing a reply does can
 * move a due time: that is what keeps the corrected latency free of coordinated omission.
 *
 * The caller calls advance() at nextWakeNs() (and may call it any time), and completed() for each
 * batch's replies. stop() ends releases and sends; what was not sent is `unsent`.
 */
export class OpenLoopDispatcher {
  readonly ledger: OpenLoopLedger;
  private readonly o: DispatcherOptions;
  private readonly endNs: number;
  private next = 0;
  /** The window's batch being filled, and when its window closes. */
  private open: OpenLoopBatch | undefined;
  private openDeadlineNs = 0;
  private readonly backlog: OpenLoopBatch[] = [];
  /** Answered batches, reused: a run at 20k/s makes no batch object per command. */
  private readonly spare: OpenLoopBatch[] = [];
  private backlogHead = 0;
  /** Connections with room for one more batch, in the order they became free. */
  private readonly free: number[] = [];
  private freeHead = 0;
  private roundRobin = 0;
  private inFlight = 0;
  private stopped = false;

  constructor(options: DispatcherOptions) {
    parseWith(DISPATCHER_OPTIONS, options, keyPath('OpenLoopDispatcher'));
    this.o = options;
    this.endNs = options.startNs + options.durationNs;
    this.ledger = new OpenLoopLedger(options.startNs, options.durationNs, options.bucketNs ?? 100e6);
    for (let c = 0; c < options.connections; c++) this.free.push(c);
    // The punctual replay models commands sent alone, one in flight per connection.
    const s = options.schedule;
    if (s && options.batchWindowNs <= 0 && options.inFlightPerConnection === 1) this.ledger.keepServiceTimes(s.length);
  }

  /** Releases what is due, closes what the window closed, and sends what has a connection. */
  advance(): void {
    const now = this.o.clock.nowNs();
    if (!this.stopped) this.release(now);
    this.dispatch(now);
  }

  /** When advance() has work next (a due command or a window closing); undefined when only replies can bring work. */
  nextWakeNs(): number | undefined {
    if (this.stopped) return undefined;
    let wake = Infinity;
    const s = this.o.schedule;
    if (s && this.next < s.length) wake = this.o.startNs + (s[this.next] as number);
    if (this.open) wake = Math.min(wake, this.openDeadlineNs);
    // Closed loops end at the duration: wake then, in case nothing is in flight to say so.
    if (!s && this.inFlight === 0) wake = Math.min(wake, this.endNs);
    return wake === Infinity ? undefined : wake;
  }

  /** The replies to `batch` are in (ok), or it failed (not ok). Frees its connection and sends what waits. */
  completed(batch: OpenLoopBatch, ok: boolean): void {
    const now = this.o.clock.nowNs();
    this.inFlight--;
    this.ledger.onCompleted(batch.dues, batch.sentNs, now, ok);
    // A closed loop is one command at a time per connection whatever the client could queue.
    if (this.o.inFlightPerConnection === 1 || !this.o.schedule) this.free.push(batch.conn);
    batch.dues.length = 0;
    this.spare.push(batch);
    this.advance();
  }

  /** No more releases or sends (end of the drain, Ctrl-C). Batches in flight still complete. */
  stop(): void {
    this.stopped = true;
  }

  /** Every command was released and answered, or the run was stopped and nothing is in flight. */
  get finished(): boolean {
    if (this.inFlight > 0) return false;
    if (this.stopped) return true;
    const s = this.o.schedule;
    const released = s ? this.next >= s.length : this.o.clock.nowNs() >= this.endNs;
    return released && !this.open && this.backlogHead === this.backlog.length;
  }

  get batchesInFlight(): number {
    return this.inFlight;
  }

  /** Commands never sent: still scheduled, in the open batch or in the backlog. */
  get unsent(): number {
    const s = this.o.schedule;
    const scheduled = s ? s.length - this.next : 0;
    return scheduled + this.ledger.backlogNow;
  }

  private release(now: number): void {
    const s = this.o.schedule;
    if (!s) return; // closed loops release in dispatch(), one per free connection
    const { startNs, batchWindowNs, maxBatch } = this.o;
    while (this.next < s.length) {
      const due = startNs + (s[this.next] as number);
      if (due > now) break;
      this.next++;
      // Alone, a command's lateness is taken when it is sent (or finds no free connection); in a
      // window's batch, now: the wait for the batch to close is counted apart (batch wait).
      this.ledger.onReleased(due, now, batchWindowNs > 0);
      if (batchWindowNs <= 0) {
        this.enqueue(this.batchOf(due), now, false);
        continue;
      }
      if (this.open && due >= this.openDeadlineNs) this.closeOpen(now);
      if (!this.open) {
        this.open = this.batchOf();
        this.openDeadlineNs = due + batchWindowNs;
      }
      this.open.dues.push(due);
      if (this.open.dues.length >= maxBatch) this.closeOpen(now);
    }
    if (this.open && now >= this.openDeadlineNs) this.closeOpen(now);
  }

  private closeOpen(now: number): void {
    const batch = this.open as OpenLoopBatch;
    this.open = undefined;
    this.enqueue(batch, now, true);
  }

  /** A batch from the spares (or a new one), holding `due` if given. */
  private batchOf(due?: number): OpenLoopBatch {
    const batch = this.spare.pop() ?? { dues: [], conn: -1, sentNs: 0, closedNs: 0, lateTaken: false };
    if (due !== undefined) batch.dues.push(due);
    return batch;
  }

  private enqueue(batch: OpenLoopBatch, now: number, lateTaken: boolean): void {
    this.ledger.onBatchClosed(batch.dues, now);
    batch.closedNs = now;
    batch.lateTaken = lateTaken;
    this.backlog.push(batch);
  }

  private dispatch(now: number): void {
    if (this.stopped) return;
    if (!this.o.schedule) {
      // Closed loops: every free connection takes a command due now, until the duration ends.
      // Due when sent, so corrected equals uncorrected.
      while (now < this.endNs && this.freeHead < this.free.length) {
        const sentNs = this.o.clock.nowNs();
        this.ledger.onReleased(sentNs, sentNs, true);
        this.enqueue(this.batchOf(sentNs), sentNs, true);
        this.sendNext(this.takeFree(), sentNs);
      }
      return;
    }
    // Each write takes time (a syscall that hands the bytes to the peer): the nth batch of a turn
    // leaves after the n - 1 before it, so each send time is read just before its own write.
    while (this.backlogHead < this.backlog.length) {
      let conn: number;
      if (this.o.inFlightPerConnection === 1) {
        if (this.freeHead === this.free.length) return this.noFreeConnection(now);
        conn = this.takeFree();
      } else {
        conn = this.roundRobin;
        this.roundRobin = (this.roundRobin + 1) % this.o.connections;
      }
      this.sendNext(conn, this.o.clock.nowNs());
    }
  }

  private takeFree(): number {
    const conn = this.free[this.freeHead++] as number;
    if (this.freeHead > 1024 && this.freeHead * 2 > this.free.length) {
      this.free.splice(0, this.freeHead);
      this.freeHead = 0;
    }
    return conn;
  }

  /** Sends the backlog's oldest batch on `conn`; `sentNs` is the clock just before its write. */
  private sendNext(conn: number, sentNs: number): void {
    const batch = this.backlog[this.backlogHead++] as OpenLoopBatch;
    if (this.backlogHead > 1024 && this.backlogHead * 2 > this.backlog.length) {
      this.backlog.splice(0, this.backlogHead);
      this.backlogHead = 0;
    }
    batch.conn = conn;
    batch.sentNs = sentNs;
    this.inFlight++;
    this.ledger.onSent(batch.dues.length, sentNs, batch.closedNs);
    if (!batch.lateTaken) {
      batch.lateTaken = true;
      this.ledger.onLate(batch.dues[0] as number, sentNs);
    }
    this.o.send(batch);
  }

  /**
   * The backlog's batches released alone in this turn found no free connection: their lateness is when
   * the generator saw them due. The wait that follows is the link's (queueing), which the
   * corrected latency counts, not the generator's.
   */
  private noFreeConnection(now: number): void {
    for (let i = this.backlog.length - 1; i >= this.backlogHead; i--) {
      const batch = this.backlog[i] as OpenLoopBatch;
      if (batch.lateTaken) break; // older ones were taken in the turn they closed
      batch.lateTaken = true;
      this.ledger.onLate(batch.dues[0] as number, now);
    }
  }
}
