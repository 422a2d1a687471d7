// Lab-only instrumentation of a redis-rtt proxy process, preloaded by lateness-sweep.mjs:
//   node --import lab/tools/lateness-diag.mjs DIR/bin/redis-rtt.js proxy ...   (LATENESS_DIST=DIR/dist)
// Wraps the PreciseScheduler's and the precise wakers' prototypes (the CLI imports the same modules, so
// they are patched too) to split each timed delivery's lateness by path: "woken" when a waker's
// wake (timerfd or timer thread) came between the timer's arming and its firing (the scheduler slept, then polled and spun
// the rest), "polled" otherwise (the loop was polling or busy when it fell due). Records each
// wake's own lateness (past the time it was asked for), GC pauses overlapping a late
// delivery, and the event loop's utilisation. For A/B runs of one build: LATENESS_SPIN_US sets a
// fixed wake margin (the scheduler's `spinWindowNs` option) instead of the learned one,
// LATENESS_LINGER_US the linger. Answers `{cmd:'reset'}` / `{cmd:'report'}` on the IPC channel.
import { performance, PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.env.LATENESS_DIST;
if (!dist) throw new Error('LATENESS_DIST: set it to the dist/ directory of the build to instrument');
const { PreciseScheduler } = await import(pathToFileURL(path.join(dist, 'link/scheduler.js')).href);
const { ThreadWaker, TimerfdWaker } = await import(pathToFileURL(path.join(dist, 'link/waker.js')).href);
const { realClock } = await import(pathToFileURL(path.join(dist, 'clock.js')).href);
const nowNs = realClock.nowNs;
/** A late delivery, for the GC correlation: over this, in ns. */
const LATE_NS = 100_000;

/** @typedef {[number, number]} Span start and end, ns since the epoch */
/**
 * @typedef {object} State
 * @property {{ woken: number[], polled: number[] }} late lateness per delivery by path, us
 * @property {number[]} wakeLateUs
 * @property {Span[]} gcs
 * @property {Span[]} lateSpans
 * @property {import('node:perf_hooks').EventLoopUtilization} elu
 */
/** @type {State} */
let state;
function reset() {
  state = {
    late: { woken: [], polled: [] },
    wakeLateUs: [],
    gcs: [],
    lateSpans: [],
    elu: performance.eventLoopUtilization(),
  };
}
reset();
let wakes = 0;

new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const start = performance.timeOrigin * 1e6 + e.startTime * 1e6;
    state.gcs.push([start, start + e.duration * 1e6]);
  }
}).observe({ entryTypes: ['gc'] });
// The clock and timeOrigin+now() differ by a constant: measure it once.
const epochOffsetNs = (performance.timeOrigin + performance.now()) * 1e6 - nowNs();

/**
 * What this file reads and sets on a PreciseScheduler, a ThreadWaker and a Timer (private fields:
 * it throws, instead of measuring nothing, when they change).
 * @typedef {object} SchedulerInternals
 * @property {number | undefined} fixedEarlyNs the `spinWindowNs` option
 * @property {{ o: { lingerNs: number } }} linger its options (src/link/linger.ts)
 * @property {boolean} [__tuned]
 * @typedef {{ dueNs: number, fire: () => void, __wakesAtArm?: number, __wrapped?: boolean }} DiagTimer
 */
const spinUs = process.env.LATENESS_SPIN_US;
const lingerUs = process.env.LATENESS_LINGER_US;
/** @param {object} o @param {string} field */
const need = (o, field) => {
  if (!(field in o)) throw new Error(`lateness-diag: the scheduler has no field ${field} any more; update lab/tools/lateness-diag.mjs`);
};

// Both precise wakers: the timerfd alarm (the default where it was built; builds before it have none)
// and the timer thread.
for (const [name, Waker] of [['ThreadWaker', ThreadWaker], ['TimerfdWaker', TimerfdWaker]]) {
  if (Waker === undefined && name === 'TimerfdWaker') continue;
  const woke = Waker?.prototype.woke;
  if (typeof woke !== 'function') throw new Error(`lateness-diag: ${name} has no woke() any more; update lab/tools/lateness-diag.mjs`);
  Waker.prototype.woke = /** @this {{ armedAtNs: number }} */ function () {
    wakes++;
    if (Number.isFinite(this.armedAtNs)) state.wakeLateUs.push((nowNs() - this.armedAtNs) / 1000);
    woke.call(this);
  };
}

const proto = PreciseScheduler.prototype;
const arm = proto.arm;
proto.arm = /** @this {SchedulerInternals} @param {DiagTimer} timer @param {number} dueNs */ function (timer, dueNs) {
  if (!this.__tuned) {
    this.__tuned = true;
    need(this, 'fixedEarlyNs');
    need(this, 'linger');
    need(this.linger, 'o');
    need(this.linger.o, 'lingerNs');
    if (spinUs !== undefined) this.fixedEarlyNs = Number(spinUs) * 1000;
    if (lingerUs !== undefined) this.linger.o.lingerNs = Number(lingerUs) * 1000;
  }
  timer.__wakesAtArm = wakes;
  if (!timer.__wrapped) {
    // A delay line arms one timer again and again: wrap its fire once.
    timer.__wrapped = true;
    const fire = timer.fire;
    timer.fire = () => {
      const now = nowNs();
      const lateNs = now - timer.dueNs;
      (wakes !== timer.__wakesAtArm ? state.late.woken : state.late.polled).push(lateNs / 1000);
      if (lateNs > LATE_NS) state.lateSpans.push([timer.dueNs + epochOffsetNs, now + epochOffsetNs]);
      fire();
    };
  }
  arm.call(this, timer, dueNs);
};

/** @param {number[]} xs */
const q = (xs) => {
  if (xs.length === 0) return { n: 0, p50: 0, p99: 0, max: 0 };
  const s = Float64Array.from(xs).sort();
  const at = (/** @type {number} */ p) => Math.round(/** @type {number} */ (s[Math.min(s.length - 1, Math.floor(p * s.length))]));
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: Math.round(/** @type {number} */ (s[s.length - 1])) };
};

function report() {
  const { late, gcs, lateSpans } = state;
  let withGc = 0;
  for (const [a, b] of lateSpans) if (gcs.some(([s, e]) => s < b && e > a)) withGc++;
  const gcUs = gcs.map(([s, e]) => (e - s) / 1000);
  return {
    lateWokenUs: q(late.woken),
    latePolledUs: q(late.polled),
    wakeLateUs: q(state.wakeLateUs),
    gc: { n: gcs.length, p50: q(gcUs).p50, max: q(gcUs).max, totalUs: Math.round(gcUs.reduce((a, b) => a + b, 0)) },
    lateOver100: lateSpans.length,
    lateOver100WithGc: withGc,
    elu: performance.eventLoopUtilization(state.elu).utilization,
  };
}

process.on('message', (/** @type {{ cmd?: string } | undefined} */ m) => {
  if (m?.cmd === 'reset') {
    reset();
    process.send?.({ ok: true });
  } else if (m?.cmd === 'report') process.send?.(report());
});
// The IPC channel must not keep the proxy alive once SIGTERM has closed everything else.
process.channel?.unref();
