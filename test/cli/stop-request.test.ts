import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram, runProgram } from '../../src/cli/main.js';
import { abortOnStop, untilStopSignal } from '../../src/cli/stop-request.js';
import { RedisSpawnError } from '../../src/errors.js';
import { clusterBenchReport } from '../../src/cluster/bench/cluster-bench.js';
import { interruptedWords } from '../../src/format.js';
import { interruptedMark } from '../../src/results/interrupted.js';
import { BIN } from '../hardening/helpers/cli-proxy.js';
import { runUntilHangUp } from './hang-up.js';
import { freePort, signalAtListening } from './signal-at-listening.js';

/** A program whose one command fails the way a start-up cut short by Ctrl-C fails. */
function failingProgram(before: () => void): Command {
  const program = new Command('t').exitOverride();
  program.command('run').action(() => {
    before();
    throw new RedisSpawnError('redis-server (redis-server) was killed by SIGINT before it was ready');
  });
  return program;
}

describe('a failure after Ctrl-C', () => {
  let stderr = '';
  afterEach(() => {
    vi.restoreAllMocks();
    stderr = '';
  });
  const capture = (): void => {
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  };

  it('ends as the stop asked for: exit 130, one line, no stack trace', async () => {
    capture();
    const stop = abortOnStop(() => {});
    try {
      const code = await runProgram(failingProgram(() => process.emit('SIGINT')), ['node', 't', 'run']);
      expect(code).toBe(130);
      expect(stop.signal.aborted).toBe(true);
    } finally {
      stop.dispose();
    }
    expect(stderr).toBe('redis-rtt: stopped on request (redis-server (redis-server) was killed by SIGINT before it was ready)\n');
  });

  it('is a failure (exit 1) when no Ctrl-C came, even after an earlier run was stopped', async () => {
    capture();
    const stop = abortOnStop(() => {});
    process.emit('SIGINT');
    stop.dispose();
    // A new run starts with no stop asked for.
    const next = abortOnStop(() => {});
    try {
      expect(await runProgram(failingProgram(() => {}), ['node', 't', 'run'])).toBe(1);
    } finally {
      next.dispose();
    }
    expect(stderr).toMatch(/^redis-rtt: .*killed by SIGINT before it was ready/);
    expect(stderr).not.toMatch(/stopped on request/);
  });

  it('after SIGTERM exits 143, and a command that finished reports the same status', async () => {
    capture();
    const stop = abortOnStop(() => {});
    try {
      process.emit('SIGTERM');
      expect(stop.signal.aborted).toBe(true);
      expect(stop.exitStatus).toBe(143);
      expect(await runProgram(failingProgram(() => {}), ['node', 't', 'run'])).toBe(143);
    } finally {
      stop.dispose();
    }
    expect(stderr).toMatch(/^redis-rtt: stopped on request \(/);
    // Disposed: a later SIGTERM is no longer ours (no handler left behind).
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });
});

describe('the first stop\'s line names what quits at once', () => {
  it('Ctrl-C after SIGINT; SIGTERM (or Ctrl-C) after SIGTERM, not "Ctrl-C again"', () => {
    // A CI timeout or `kill` sends SIGTERM from no terminal: "Ctrl-C again" named a key nobody can press.
    const hints: string[] = [];
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const stop = abortOnStop((quit) => hints.push(quit));
      try {
        process.emit(signal);
        expect(stop.signal.aborted).toBe(true);
      } finally {
        stop.dispose();
      }
    }
    expect(hints).toEqual(['(Ctrl-C again to quit at once)', '(SIGTERM again, or Ctrl-C, to quit at once)']);
  });
});

describe('SIGHUP (the terminal closed, an ssh session dropped) stops as SIGTERM does', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a run: aborted with its name, exit 129, and a write failing on the gone terminal throws nothing', () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const hints: string[] = [];
    const stop = abortOnStop((quit) => hints.push(quit));
    try {
      // Node's default for SIGHUP killed the process: no handler, no report.
      expect(process.emit('SIGHUP')).toBe(true);
      expect(stop.signal.reason).toBe('SIGHUP');
      expect(stop.exitStatus).toBe(129);
    } finally {
      stop.dispose();
    }
    expect(hints).toEqual(['(SIGTERM to quit at once)']);
    expect(process.listenerCount('SIGHUP')).toBe(0);
    // The launcher's listener exited 0 on EPIPE and rethrew EIO: the close (summary, --stats-json) was cut short.
    const eio = Object.assign(new Error('write EIO'), { code: 'EIO' });
    expect(() => process.stderr.emit('error', eio)).not.toThrow();
    expect(process.stderr.listeners('error')).toHaveLength(1);
  });

  it('a report names it: stoppedBy "SIGHUP" in the JSON, "interrupted (SIGHUP)" in the table and verdict', () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stop = abortOnStop(() => {});
    try {
      process.emit('SIGHUP');
    } finally {
      stop.dispose();
    }
    // bench and bench --rate (interruptedMark), bench --cluster: "interrupted": true and no stoppedBy before.
    expect(interruptedMark(stop.signal)).toEqual({ interrupted: true, stoppedBy: 'SIGHUP' });
    expect(clusterBenchReport([], 6, 5, stop.signal)).toMatchObject({ interrupted: true, stoppedBy: 'SIGHUP' });
    expect(interruptedWords(stop.signal.reason)).toBe('interrupted (SIGHUP)');
  });

  it('proxy and server: untilStopSignal resolves and says "SIGHUP, closing"', async () => {
    let stderr = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
    const stopped = untilStopSignal('redis-rtt server: ');
    expect(process.emit('SIGHUP')).toBe(true);
    await stopped;
    expect(stderr).toBe('redis-rtt server: SIGHUP, closing\n');
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });
});

describe('a terminal that really closes', () => {
  it('proxy: writes --stats-json and exits 0, not SIGABRT in Node\'s exit (its terminal reset fails)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rtt-hup-'));
    try {
      const statsJson = join(dir, 'stats.json');
      // Port 1: nothing listens, the proxy listens all the same (clients refused); no Redis needed.
      const argv = [process.execPath, BIN, 'proxy', '--upstream', '127.0.0.1:1', '--cluster', 'off', '--compensate', '0', '--stats-json', statsJson];
      const run = await runUntilHangUp(argv, '"event":"listening"');
      expect(run.seen, run.output).toBe(true);
      // It died of SIGABRT (6) after writing its files: Node's exit could not reset the gone terminal.
      expect([run.code, run.signal]).toEqual([0, null]);
      expect(JSON.parse(readFileSync(statsJson, 'utf8'))).toMatchObject({ totals: expect.any(Object) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('proxy: a signal during start-up', () => {
  afterEach(() => vi.restoreAllMocks());

  it('closes what started, removes the trace, says so in one line and exits 143', async () => {
    let stderr = '';
    let stdout = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
    vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((stdout += String(s)), true));
    const dir = mkdtempSync(join(tmpdir(), 'rtt-stop-'));
    const port = await freePort();
    // The signal lands as the start-up's handler is installed: before the proxy is bound.
    const signalAtStart = (event: string | symbol): void => {
      if (event !== 'SIGTERM') return;
      process.off('newListener', signalAtStart);
      queueMicrotask(() => process.emit('SIGTERM'));
    };
    process.on('newListener', signalAtStart);
    try {
      const argv = ['node', 'redis-rtt', 'proxy', '--upstream', '127.0.0.1:1', '--cluster', 'off', '--compensate', '0'];
      const code = await runProgram(buildProgram(), [...argv, '--listen', `127.0.0.1:${port}`, '--record', join(dir, 't.trace')]);
      expect(code).toBe(143);
    } finally {
      process.off('newListener', signalAtStart);
    }
    // It exited 143 without a word before.
    expect(stderr).toMatch(/redis-rtt: stopping: the start-up was cut short; closing what it started/);
    expect(stderr).toMatch(/redis-rtt: stopped on request \(SIGTERM during start-up; what it started is closed\)\n$/);
    expect(stdout).not.toMatch(/listening/);
    expect(readdirSync(dir)).toEqual([]);
    expect(process.listenerCount('SIGTERM')).toBe(0);
    // The listener is closed: its port binds again.
    await new Promise<void>((resolve, reject) => {
      const server = createServer().once('error', reject);
      server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
    });
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('proxy: from start-up to run', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a stop signal has a handler at every moment: one that lands as the start ends is not lost', async () => {
    // Sent by kill as the start ended, a signal could reach the start-up's handler as it was removed:
    // Node drops it (its handle is closing), and the proxy printed its listening line and ran on
    // (1 run in 3 in a black-box try); with no handler at all between the two, Node's default killed it.
    const run = signalAtListening('SIGTERM');
    try {
      const argv = ['node', 'redis-rtt', 'proxy', '--upstream', '127.0.0.1:1', '--cluster', 'off', '--compensate', '0'];
      expect(await runProgram(buildProgram(), argv)).toBe(0);
    } finally {
      run.stop();
    }
    expect(run.listening).toBe(true);
    expect(run.uncovered).toEqual([]);
  });
});

