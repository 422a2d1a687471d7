import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runProgram } from '../../src/cli/main.js';
import { abortOnSigint } from '../../src/cli/sigint.js';
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
    const sigint = abortOnSigint(() => {});
    try {
      const code = await runProgram(failingProgram(() => process.emit('SIGINT')), ['node', 't', 'run']);
      expect(code).toBe(130);
      expect(sigint.signal.aborted).toBe(true);
    } finally {
      sigint.dispose();
    }
    expect(stderr).toBe('redis-rtt: stopped on request (redis-server (redis-server) was killed by SIGINT before it was ready)\n');
  });

  it('is a failure (exit 1) when no Ctrl-C came, even after an earlier run was stopped', async () => {
    capture();
    const sigint = abortOnSigint(() => {});
    process.emit('SIGINT');
    sigint.dispose();
    // A new run starts with no stop asked for.
    const next = abortOnSigint(() => {});
    try {
      expect(await runProgram(failingProgram(() => {}), ['node', 't', 'run'])).toBe(1);
    } finally {
      next.dispose();
    }
    expect(stderr).toMatch(/^redis-rtt: .*killed by SIGINT before it was ready/);
    expect(stderr).not.toMatch(/stopped on request/);
  });
});
