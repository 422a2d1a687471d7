// What one precise wake of a sleeping main thread costs in CPU on this machine, with no proxy and
// no sockets: the ways Node can sleep until a deadline, each N times, a deadline every GAP ms.
//   - message:   a worker sleeps in Atomics.wait(timeout), then postMessage (the timer thread's way)
//   - waitAsync: the same worker, but it wakes the main thread with Atomics.notify on an
//                Atomics.waitAsync the main thread armed (no message, no EventEmitter)
//   - timeout:   setTimeout(1) on the main thread (whole milliseconds)
//   - timedWait: only the worker's Atomics.wait(timeout), the main thread never woken
//   - timerfd:   the native alarm on the main thread's own loop (src/link/native-alarm.ts; needs npm run build and
//                the addon built by npm ci), no worker
// CPU is process.cpuUsage() (every thread) per wake; lateness is against the asked deadline.
//   node lab/tools/thread-wake-cost.mjs [--wakes N] [--gap-ms G] [--rounds R]
import { Worker } from 'node:worker_threads';
import { parseArgs } from 'node:util';
import { openAlarm } from '../../dist/link/native-alarm.js';

const { values } = parseArgs({ options: { wakes: { type: 'string', default: '4000' }, 'gap-ms': { type: 'string', default: '0.4' }, rounds: { type: 'string', default: '3' } } });
const WAKES = Number(values.wakes);
const GAP_MS = Number(values['gap-ms']);
const ROUNDS = Number(values.rounds);

const nowMs = () => {
  const t = process.hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
};

// The worker's loop: sleep until the deadline in f[0] (Infinity: none), then wake the main thread.
const WORKER = `
const { parentPort, workerData: { sab, how } } = require('node:worker_threads');
const c = new Int32Array(sab, 0, 2); const f = new Float64Array(sab, 8, 1);
const now = () => { const t = process.hrtime(); return t[0] * 1e3 + t[1] / 1e6; };
if (how === 'timedWait') parentPort.once('message', () => {
  for (let i = 0; i < workerData.wakes; i++) Atomics.wait(c, 0, Atomics.load(c, 0), workerData.gapMs);
  parentPort.postMessage(0);
});
else for (;;) {
  const g = Atomics.load(c, 0); const at = f[0];
  if (!(at < Infinity)) { Atomics.wait(c, 0, g); continue; }
  const left = at - now();
  if (left > 0 && Atomics.wait(c, 0, g, left) !== 'timed-out') continue;
  f[0] = Infinity;
  if (how === 'message') parentPort.postMessage(0);
  else { Atomics.add(c, 1, 1); Atomics.notify(c, 1); }
}`.replace('workerData.wakes', String(WAKES)).replace('workerData.gapMs', String(GAP_MS));

/** @param {'message' | 'waitAsync' | 'timeout' | 'timedWait' | 'timerfd'} how */
function measure(how) {
  return new Promise((resolve) => {
    const sab = new SharedArrayBuffer(16);
    const c = new Int32Array(sab, 0, 2);
    const f = new Float64Array(sab, 8, 1);
    f[0] = Infinity;
    const alarm = how === 'timerfd' ? openAlarm(() => woke()) : undefined;
    if (how === 'timerfd' && alarm === undefined) throw new Error('timerfd: the addon is not built (npm ci builds it)');
    const worker = how === 'timeout' || how === 'timerfd' ? undefined : new Worker(WORKER, { eval: true, workerData: { sab, how } });
    /** @type {number[]} */
    const late = [];
    let dueMs = 0;
    let cpu0 = process.cpuUsage();
    const finish = () => {
      const cpu = process.cpuUsage(cpu0);
      void worker?.terminate();
      alarm?.close();
      late.sort((a, b) => a - b);
      /** @param {number} p */
      const q = (p) => Math.round((late[Math.floor(p * (late.length - 1))] ?? NaN) * 1000);
      resolve({ how, cpuUs: (cpu.user + cpu.system) / WAKES, lateP50Us: q(0.5), lateP99Us: q(0.99) });
    };
    const arm = () => {
      if (how === 'timeout') {
        dueMs = nowMs() + 1;
        setTimeout(woke, 1);
        return;
      }
      if (alarm) {
        dueMs = nowMs() + GAP_MS;
        alarm.set(dueMs * 1e6);
        return;
      }
      const seen = Atomics.load(c, 1);
      dueMs = nowMs() + GAP_MS;
      f[0] = dueMs;
      Atomics.add(c, 0, 1);
      Atomics.notify(c, 0);
      if (how === 'waitAsync') {
        // Node 20's TypeScript lib has no Atomics.waitAsync (ES2024); V8 has had it since Node 16.
        const r = /** @type {{ waitAsync(a: Int32Array, i: number, v: number): { async: boolean, value: Promise<unknown> | string } }} */ (
          /** @type {unknown} */ (Atomics)
        ).waitAsync(c, 1, seen);
        if (r.async && typeof r.value !== 'string') void r.value.then(woke);
        else woke();
      }
    };
    const woke = () => {
      late.push(nowMs() - dueMs);
      if (late.length === WAKES) finish();
      else arm();
    };
    if (how === 'message') worker?.on('message', woke);
    if (how === 'timedWait') worker?.on('message', finish);
    // Let the worker start before counting.
    setTimeout(() => {
      cpu0 = process.cpuUsage();
      if (how !== 'timedWait') arm();
      else worker?.postMessage(0);
    }, 300);
  });
}

console.log(`${WAKES} wakes, a deadline every ${GAP_MS} ms (setTimeout: 1 ms), ${ROUNDS} rounds in rotated order`);
const kinds = /** @type {const} */ (['message', 'waitAsync', 'timeout', 'timedWait', 'timerfd']);
/** @type {Record<string, {cpuUs: number, lateP50Us: number, lateP99Us: number}[]>} */
const results = {};
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < kinds.length; k++) {
    const how = /** @type {(typeof kinds)[number]} */ (kinds[(k + r) % kinds.length]);
    (results[how] ??= []).push(/** @type {any} */ (await measure(how)));
  }
}
/** @param {number[]} xs */
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
for (const how of kinds) {
  const rs = results[how] ?? [];
  const cpu = rs.map((x) => x.cpuUs);
  console.log(
    `${how.padEnd(10)} CPU us/wake ${med(cpu).toFixed(1)} (${Math.min(...cpu).toFixed(1)}-${Math.max(...cpu).toFixed(1)})` +
      (how === 'timedWait' ? '' : `  late p50 ${med(rs.map((x) => x.lateP50Us))} us, p99 ${med(rs.map((x) => x.lateP99Us))} us`),
  );
}
process.exit(0);
