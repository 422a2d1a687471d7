// Lab-only instrumentation of a redis-rtt proxy process, preloaded by lateness-sweep.mjs:
//   node --import lab/tools/lateness-diag.mjs DIR/bin/redis-rtt.js proxy ...   (LATENESS_DIST=DIR/dist)
// Wraps the PreciseScheduler's prototype (the CLI imports the same module, so it is patched too) to
// split each timed delivery's lateness by path: "coarse" when a coarse setTimeout woke the scheduler
// between the timer's scheduling and its firing, "fine" otherwise. Records the coarse setTimeout's
// own lateness (past the wake-up it was set for), GC pauses overlapping a late delivery, and the
// event loop's utilisation. For A/B runs of one build: LATENESS_SPIN_US / LATENESS_LINGER_US set
// the scheduler's spin window and linger. Answers `{cmd:'reset'}` / `{cmd:'report'}` on the IPC channel.
import { performance, PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.env.LATENESS_DIST;
if (!dist) throw new Error('LATENESS_DIST: set it to the dist/ directory of the build to instrument');
const { PreciseScheduler } = await import(pathToFileURL(path.join(dist, 'link/scheduler.js')).href);
const { realClock } = await import(pathToFileURL(path.join(dist, 'clock.js')).href);
const nowNs = realClock.nowNs;
/** A late delivery, for the GC correlation: over this, in ns. */
const LATE_NS = 100_000;

/** @typedef {[number, number]} Span start and end, ns since the epoch */
/**
 * @typedef {object} State
 * @property {{ coarse: number[], fine: number[] }} late lateness per delivery by path, us
 * @property {number[]} coarseWakeLateUs
 * @property {Span[]} gcs
 * @property {Span[]} lateSpans
 * @property {import('node:perf_hooks').EventLoopUtilization} elu
 */
/** @type {State} */
let state;
function reset() {
  state = {
    late: { coarse: [], fine: [] },
    coarseWakeLateUs: [],
    gcs: [],
    lateSpans: [],
    elu: performance.eventLoopUtilization(),
  };
}
reset();
let coarseWakes = 0;

new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const start = performance.timeOrigin * 1e6 + e.startTime * 1e6;
    state.gcs.push([start, start + e.duration * 1e6]);
  }
}).observe({ entryTypes: ['gc'] });
// The clock and timeOrigin+now() differ by a constant: measure it once.
const epochOffsetNs = (performance.timeOrigin + performance.now()) * 1e6 - nowNs();

/**
 * What this file reads and sets on a PreciseScheduler (its private fields; it breaks when they change).
 * @typedef {object} SchedulerInternals
 * @property {unknown} coarse the coarse timer, undefined when none is armed
 * @property {number} coarseDueNs when the coarse timer is to wake the scheduler
 * @property {number} spinWindowNs
 * @property {number} lingerNs
 * @property {boolean} [__tuned]
 * @property {{ wakeNs: number }} [__coarse]
 */
const proto = PreciseScheduler.prototype;
const spinUs = process.env.LATENESS_SPIN_US;
const lingerUs = process.env.LATENESS_LINGER_US;
const arm = proto.arm;
proto.arm = /** @this {SchedulerInternals} */ function () {
  if (!this.__tuned) {
    this.__tuned = true;
    if (spinUs !== undefined) this.spinWindowNs = Number(spinUs) * 1000;
    if (lingerUs !== undefined) this.lingerNs = Number(lingerUs) * 1000;
  }
  // onCoarse clears `coarse` then calls arm: a recorded coarse timer gone at entry has fired.
  if (this.__coarse && this.coarse === undefined) {
    coarseWakes++;
    state.coarseWakeLateUs.push((nowNs() - this.__coarse.wakeNs) / 1000);
    this.__coarse = undefined;
  }
  const before = this.coarse;
  arm.call(this);
  if (this.coarse === undefined) this.__coarse = undefined;
  else if (this.coarse !== before) this.__coarse = { wakeNs: this.coarseDueNs };
};
const schedule = proto.schedule;
proto.schedule = /** @param {number} dueNs @param {() => void} fire */ function (dueNs, fire) {
  const wakesAtSchedule = coarseWakes;
  return schedule.call(this, dueNs, () => {
    const now = nowNs();
    const lateNs = now - dueNs;
    (coarseWakes !== wakesAtSchedule ? state.late.coarse : state.late.fine).push(lateNs / 1000);
    if (lateNs > LATE_NS) state.lateSpans.push([dueNs + epochOffsetNs, now + epochOffsetNs]);
    fire();
  });
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
    lateCoarseUs: q(late.coarse),
    lateFineUs: q(late.fine),
    coarseWakeLateUs: q(state.coarseWakeLateUs),
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
