import type { Redis } from 'ioredis';
import { realClock } from '../../clock.js';
import { PreciseScheduler } from '../../link/scheduler.js';
import { newTimer } from '../../link/timer-heap.js';
import { OpenLoopDispatcher, type OpenLoopBatch } from './dispatcher.js';
import type { OpenLoopLedger } from './ledger.js';
import { buildArrivalSchedule, type Arrival } from './schedule.js';
import type { IncrSender } from './sender.js';

export interface OpenLoopRunOptions {
  /** Connected, each writing INCRs of the run's counter: `IncrConnection`s, or `IoredisIncrSender`s for auto. */
  clients: IncrSender[];
  /**
   * Every due command goes out at once, round-robin, whatever its connection has in flight: a
   * connection carries many (mux), or the client queues them itself (auto-pipelining). Otherwise a
   * connection holds one command (or batch) at a time, and a due command may wait for a free one.
   */
  multiplexed: boolean;
  /** Commands per second; undefined = closed loops. */
  ratePerSec?: number;
  arrival: Arrival;
  durationUs: number;
  batchWindowUs: number;
  maxBatch: number;
  seed: number;
  /** After the duration, the backlog is still sent for this long; what is left then is unsent. */
  drainLimitUs: number;
  signal?: AbortSignal;
  /** The link proxy's round-trip counter (in this process or a child); absent on `direct`. */
  roundTrips?: () => number | null | Promise<number | null>;
  /** The link proxy process's CPU time so far, microseconds; absent on `direct`. */
  proxyCpuUs?: () => number | Promise<number>;
  /** Called every progressEveryMs while the run lasts (a long run says how it goes). */
  onProgress?: (p: OpenLoopRunProgress) => void;
  /** @default PROGRESS_EVERY_MS */
  progressEveryMs?: number;
}

/** Where a run is: seconds since the schedule's zero, and its commands so far. */
export interface OpenLoopRunProgress {
  elapsedS: number;
  sent: number;
  completed: number;
  /** Due, not yet sent. */
  backlog: number;
}

/** One progress call this often: a few lines for a minute's run, one timer wake in thousands. */
const PROGRESS_EVERY_MS = 5000;

export interface OpenLoopRunOutcome {
  ledger: OpenLoopLedger;
  scheduled: number;
  unsent: number;
  roundTrips: number | null;
  /** The first wrong or error reply, if any. */
  error?: string;
  stopped: 'drain-limit' | 'aborted' | null;
  /** This process's CPU (the driver: generator and clients; the proxies run in processes of their own) over the run, percent of one core. */
  processCpuPct: number;
  /** The proxy process's CPU over the run, percent of one core; null without proxyCpuUs. */
  proxyCpuPct: number | null;
}

/**
 * The generator busy-waits only this close to a due time, and polls (an event-loop turn each,
 * replies read between them) before that: every clock read in a busy-wait allocates a heap
 * number, and at 20k/s the scheduler's default spin would make scavenges all the time (the
 * figures are in docs/open-loop.md, "Driver and proxies").
 */
const GENERATOR_SPIN_NS = 20_000;

/** The schedule's zero is this far after set-up, so the first commands are not born late. */
const LEAD_NS = 20e6;

/**
 * Runs one open-loop configuration over already connected clients: INCR on one counter, every
 * reply checked to be an integer. The generator's one timer comes from a PreciseScheduler of its
 * own (the timer thread's sleep, then polling and a short spin), without the poll budget: the
 * budget keeps a proxy's many deliveries from taking a core, while here one timer is the
 * schedule, and a wake late by the thread's hop would be lateness.
 */
export async function runOpenLoop(o: OpenLoopRunOptions): Promise<OpenLoopRunOutcome> {
  const clock = realClock;
  // No linger of either kind: a proxy's, for reads that follow its deliveries; the generator has none.
  const scheduler = new PreciseScheduler({ clock, lingerNs: 0, timedLingerNs: 0, maxPollShare: 1, quietSpinNs: GENERATOR_SPIN_NS });
  const schedule =
    o.ratePerSec === undefined ? undefined : buildArrivalSchedule({ ratePerSec: o.ratePerSec, durationUs: o.durationUs, arrival: o.arrival, seed: o.seed });
  const startNs = clock.nowNs() + LEAD_NS;
  const durationNs = o.durationUs * 1000;
  let error: string | undefined;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const before = o.roundTrips ? await o.roundTrips() : null;
  const proxyCpuBefore = o.proxyCpuUs ? await o.proxyCpuUs() : null;

  const answered = (batch: OpenLoopBatch, wrong: string | undefined): void => {
    if (wrong !== undefined) error ??= wrong;
    d.completed(batch, wrong === undefined);
    afterEvent();
  };
  for (const c of o.clients) c.answered = answered;
  const d = new OpenLoopDispatcher({
    clock,
    startNs,
    durationNs,
    ...(schedule ? { schedule } : {}),
    connections: o.clients.length,
    inFlightPerConnection: o.multiplexed ? Infinity : 1,
    batchWindowNs: o.batchWindowUs * 1000,
    maxBatch: o.maxBatch,
    send: (batch) => (o.clients[batch.conn] as IncrSender).send(batch),
    bucketNs: Math.max(10e6, durationNs / 200),
  });

  // One timer, armed again for each next wake: nothing allocated per command.
  const timer = newTimer(() => {
    d.advance();
    afterEvent();
  });
  const afterEvent = (): void => {
    if (d.finished) {
      scheduler.cancel(timer);
      finish();
      return;
    }
    const next = d.nextWakeNs();
    if (next === undefined || (timer.index >= 0 && timer.dueNs <= next)) return;
    scheduler.arm(timer, next);
  };

  let stopped: OpenLoopRunOutcome['stopped'] = null;
  const stop = (why: NonNullable<OpenLoopRunOutcome['stopped']>): void => {
    if (d.finished) return;
    stopped ??= why;
    d.stop();
    scheduler.cancel(timer);
    if (d.finished) finish();
  };
  const onAbort = (): void => stop('aborted');
  o.signal?.addEventListener('abort', onAbort);
  if (o.signal?.aborted) stop('aborted');
  const drainTimer = setTimeout(() => stop('drain-limit'), (startNs + durationNs - clock.nowNs()) / 1e6 + o.drainLimitUs / 1000);
  const onProgress = o.onProgress;
  const progressTimer = onProgress
    ? setInterval(() => {
        const l = d.ledger;
        onProgress({ elapsedS: Math.max(0, (clock.nowNs() - startNs) / 1e9), sent: l.sent, completed: l.completed, backlog: l.backlogNow });
      }, o.progressEveryMs ?? PROGRESS_EVERY_MS)
    : undefined;
  // Closed loops start at startNs with every connection busy; open ones at their first due time.
  const cpuBefore = process.cpuUsage();
  const wallBeforeNs = clock.nowNs();
  // A schedule with no command (a short run at a low rate can draw none) is finished before it starts.
  if (d.finished) finish();
  else scheduler.arm(timer, startNs);
  try {
    await finished;
  } finally {
    clearTimeout(drainTimer);
    clearInterval(progressTimer);
    scheduler.cancel(timer);
    scheduler.close();
    o.signal?.removeEventListener('abort', onAbort);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const wallUs = (clock.nowNs() - wallBeforeNs) / 1000;
  const proxyCpuAfter = o.proxyCpuUs ? await o.proxyCpuUs() : null;
  const after = o.roundTrips ? await o.roundTrips() : null;
  const pct = (cpuUs: number): number => (wallUs > 0 ? Math.round((cpuUs / wallUs) * 1000) / 10 : 0);
  return {
    ledger: d.ledger,
    scheduled: schedule ? schedule.length : d.ledger.released,
    unsent: d.unsent,
    roundTrips: before !== null && after !== null ? after - before : null,
    ...(error !== undefined ? { error } : {}),
    stopped,
    processCpuPct: pct(cpu.user + cpu.system),
    proxyCpuPct: proxyCpuBefore !== null && proxyCpuAfter !== null ? pct(proxyCpuAfter - proxyCpuBefore) : null,
  };
}

/** The counter the run increments: reset before, and read after to check every INCR landed once. */
export async function counterValue(admin: Redis, key: string): Promise<number> {
  return Number((await admin.get(key)) ?? 0);
}
