import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runProgram } from '../../src/cli/main.js';
import { abortOnStop } from '../../src/cli/stop-request.js';
import { RedisSpawnError } from '../../src/errors.js';

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
