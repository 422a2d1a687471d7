import { afterEach, beforeEach, vi } from 'vitest';

/** What the CLI wrote to stdout and stderr in the current test. */
export interface CliOutput {
  readonly out: string;
  readonly err: string;
}

/**
 * Captures process.stdout and process.stderr around every test of the calling file (or describe
 * block), and clears process.exitCode before and after, as `main()` sets it.
 */
export function captureCliOutput(): CliOutput {
  const io = { out: '', err: '' };
  beforeEach(() => {
    io.out = '';
    io.err = '';
    process.exitCode = undefined;
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((io.err += String(chunk)), true));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((io.out += String(chunk)), true));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });
  return io;
}
