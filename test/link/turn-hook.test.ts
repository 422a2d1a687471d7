import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { realClock } from '../../src/clock.js';
import { openTurnHook, timerfdBinding } from '../../src/link/native-alarm.js';
import { PreciseScheduler } from '../../src/link/scheduler.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ADDON = 'native/timerfd/build/Release/timerfd.node';

/** Runs a node program from the repo root; its stdout and exit status. */
function node(source: string): { out: string; status: number | null; ms: number } {
  const started = Date.now();
  const r = spawnSync(process.execPath, ['-e', source], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  return { out: r.stdout.trim(), status: r.status, ms: Date.now() - started };
}

/** A program that polls `turns` loop turns on the hook or with setImmediate and prints how many scavenges ran. */
function scavengesOver(turns: number, on: 'hook' | 'immediate'): number {
  const poll =
    on === 'hook'
      ? `const h = b.createTurns(() => { if (++n === ${turns}) { b.stopTurns(h); done(); } }); b.startTurns(h);`
      : `const poll = () => { if (++n === ${turns}) done(); else setImmediate(poll); }; setImmediate(poll);`;
  const r = node(
    `const b = require('./${ADDON}'); const { PerformanceObserver } = require('node:perf_hooks');` +
      `let gcs = 0; const o = new PerformanceObserver((l) => (gcs += l.getEntries().length)); o.observe({ entryTypes: ['gc'] });` +
      `let n = 0; const done = () => setTimeout(() => { o.disconnect(); console.log(gcs); }, 50);` +
      poll,
  );
  expect(r.status).toBe(0);
  return Number(r.out);
}

describe.runIf(process.platform === 'linux')('the turn hook (native/timerfd/turns.c)', () => {
  it('calls once per loop turn while started, until stopped from inside the call', async () => {
    let calls = 0;
    let immediates = 0;
    await new Promise<void>((resolve) => {
      const hook = openTurnHook(() => {
        calls++;
        // One Immediate a turn, run in the same check phase as the hook: the two keep pace.
        setImmediate(() => immediates++);
        if (calls === 1000) {
          hook.stop();
          resolve();
        }
      })!;
      hook.start();
      hook.start();
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toBe(1000);
    expect(Math.abs(immediates - calls)).toBeLessThanOrEqual(1);
  });

  it('keeps the process alive while started, and only then', () => {
    const started = node(
      `const b = require('./${ADDON}'); let n = 0;` +
        `const h = b.createTurns(() => { if (++n === 5000) { b.stopTurns(h); console.log('stopped after ' + n); } }); b.startTurns(h);`,
    );
    expect(started).toMatchObject({ out: 'stopped after 5000', status: 0 });
    const idle = node(`const b = require('./${ADDON}'); b.createTurns(() => console.log('turn'));`);
    expect(idle).toMatchObject({ out: '', status: 0 });
  });

  it('makes less than half the garbage of a setImmediate per turn', () => {
    // Node's own loop allocates a little every turn; the hook adds nothing to it, an Immediate does.
    const hook = scavengesOver(400_000, 'hook');
    const immediate = scavengesOver(400_000, 'immediate');
    expect(immediate).toBeGreaterThan(10);
    expect(hook).toBeLessThan(immediate / 2);
  });

  it('an exception thrown by the call is uncaught, as from any I/O callback', () => {
    const r = node(
      `const b = require('./${ADDON}');` +
        `process.on('uncaughtException', (e) => { console.log('caught ' + e.message); process.exit(0); });` +
        `const h = b.createTurns(() => { throw new Error('boom'); }); b.startTurns(h);`,
    );
    expect(r).toMatchObject({ out: 'caught boom', status: 0 });
  });

  it('runs in a worker thread, and a worker that exits with a hook started leaves nothing behind', () => {
    const r = node(
      `const { Worker } = require('node:worker_threads');` +
        `const w = new Worker("const b = require('./${ADDON}'); const { parentPort } = require('node:worker_threads'); let n = 0;" +` +
        `" const h = b.createTurns(() => { if (++n === 100) { parentPort.postMessage('turned'); process.exit(0); } }); b.startTurns(h);", { eval: true });` +
        `w.on('message', (m) => console.log(m)); w.on('exit', (c) => console.log('exit ' + c));`,
    );
    expect(r).toMatchObject({ out: 'turned\nexit 0', status: 0 });
  });

  it('refuses a closed hook and a call without a function', () => {
    const b = timerfdBinding()!;
    const h = b.createTurns(() => undefined);
    b.closeTurns(h);
    expect(() => b.startTurns(h)).toThrow(/not an open turn hook/);
    expect(() => b.stopTurns({})).toThrow(/not an open turn hook/);
    expect(() => b.createTurns(1 as unknown as () => void)).toThrow(/needs a function/);
  });
});

describe.runIf(process.platform === 'linux')('PreciseScheduler polling on the turn hook', () => {
  /** Schedules `n` timers 40-200 us apart (closer than any sleep: polled) and resolves with their lateness once all fired. */
  async function pollThrough(s: PreciseScheduler, n: number): Promise<number[]> {
    const lateNs: number[] = [];
    const startNs = realClock.nowNs() + 2_000_000;
    await new Promise<void>((resolve) => {
      for (let i = 0; i < n; i++) {
        const dueNs = startNs + i * (40_000 + ((i * 37) % 160) * 1000);
        s.schedule(dueNs, () => {
          lateNs.push(realClock.nowNs() - dueNs);
          if (lateNs.length === n) resolve();
        });
      }
    });
    return lateNs;
  }

  it('polls without a setImmediate of its own, and fires every timer in order, none early', async () => {
    const spy = vi.spyOn(globalThis, 'setImmediate');
    try {
      const hooked = new PreciseScheduler();
      const late = await pollThrough(hooked, 200);
      hooked.close();
      expect(late.every((ns) => ns >= 0)).toBe(true);
      const pollsBy = (): number => spy.mock.calls.filter(([fn]) => fn.name === 'poll').length;
      expect(pollsBy()).toBe(0);
      // The same schedule without the hook polls with setImmediate, and the spy sees it (how many
      // turns depends on how the busy-waits fall, so only that it does).
      const plain = new PreciseScheduler({ turnHook: false });
      await pollThrough(plain, 200);
      plain.close();
      expect(pollsBy()).toBeGreaterThan(0);
    } finally {
      spy.mockRestore();
    }
  });

  it('closed while polling on the hook, goes on polling with setImmediate and fires what is due', { timeout: 10_000 }, async () => {
    // A fixed 4 ms margin and no spin: the scheduler polls on the hook through the last 4 ms.
    const s = new PreciseScheduler({ spinWindowNs: 4_000_000, spinNs: 0, quietSpinNs: 0 });
    const dueNs = realClock.nowNs() + 6_000_000;
    const firedNs = new Promise<number>((resolve) => s.schedule(dueNs, () => resolve(realClock.nowNs())));
    // Inside the poll window (from +2 ms on), between two of its turns: no wake is armed then.
    await new Promise((r) => setTimeout(r, 4));
    s.close();
    const lateNs = (await firedNs) - dueNs;
    expect(lateNs).toBeGreaterThanOrEqual(0);
    // Without the hand-over nothing is armed and it never fires; the bound leaves room for a loaded machine.
    expect(lateNs).toBeLessThan(20_000_000);
  });
});
