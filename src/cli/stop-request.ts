import { closeSync } from 'node:fs';
import { isatty } from 'node:tty';
import type { StopSignalName } from '../results/interrupted.js';

/**
 * The exit status after a stop asked for by a signal, as a shell reports it: 128 + the signal's number.
 * SIGHUP (the terminal closed, an ssh session dropped) is a stop like SIGTERM: Node's default for it
 * killed the process at once, with no summary, no --stats-json, a trace cut short, no bench JSON.
 */
const STOP_STATUS: Readonly<Record<StopSignalName, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
type StopSignal = StopSignalName;
const STOP_SIGNALS = Object.keys(STOP_STATUS) as StopSignal[];

const ignoreOutputError = (): void => undefined;

let exitGuarded = false;

/**
 * Node's exit puts back the terminal settings it saved at start (ResetStdio) and aborts when that
 * fails: on a terminal that hung up tcsetattr() fails with EIO, so a run that had written its
 * summary, --stats-json and trace died of SIGABRT (134, or a SIGSEGV in the abort's own backtrace)
 * at its very end; a bare `node` script does too. A closed descriptor is skipped there, and the
 * terminal is gone, with nothing to put back: at 'exit' (the last thing JavaScript runs, so no file
 * opened later takes the number and gets our output), such a descriptor is closed. Not tied to
 * SIGHUP: a write's EIO can come first, and a job the shell let go (disown) gets no SIGHUP at all.
 */
export function closeGoneTerminalAtExit(): void {
  if (exitGuarded) return;
  exitGuarded = true;
  const terminals = [0, 1, 2].filter((fd) => isatty(fd));
  if (terminals.length === 0) return;
  process.once('exit', () => {
    // isatty() is false once the terminal hung up (tcgetattr fails): a terminal still there (a
    // `kill -HUP` from elsewhere) keeps its descriptors and gets its settings back.
    for (const fd of terminals) if (!isatty(fd)) closeSync(fd);
  });
}

/**
 * After SIGHUP the terminal is gone: a write to stdout or stderr fails (EIO on a closed tty, EPIPE on a
 * pipe whose reader left). bin/redis-rtt.js rethrew EIO (an uncaught exception) and exited 0 on EPIPE
 * (meant for `| head`): either way the close stopped half done, no --stats-json, no trace footer. The
 * lines are lost; the files are not. Its listeners are replaced, for good, as the terminal stays gone.
 */
function keepGoingWithoutTerminal(signal: StopSignal): void {
  if (signal !== 'SIGHUP') return;
  for (const stream of [process.stdout, process.stderr]) {
    stream.removeAllListeners('error');
    stream.on('error', ignoreOutputError);
  }
}

/** 0 while nothing asked the run under way to stop; else the status it exits with (130 Ctrl-C, 143 SIGTERM). */
let stopStatus = 0;

/**
 * The exit status of a stop asked for (0: none). A failure after the stop is its own doing, not a
 * fault to report with a stack trace: a Ctrl-C reaches our whole process group, and a child forked
 * in that instant (a private redis-server, a link's proxy) is still in it until it execs, so it dies
 * of the same signal and its start-up fails.
 */
export function requestedStopStatus(): number {
  return stopStatus;
}

export interface StopRequest {
  /** Aborted at the first Ctrl-C, SIGTERM or SIGHUP (the signal's name is the reason). */
  readonly signal: AbortSignal;
  /** What the command exits with once it has reported what finished: 130 after Ctrl-C, 143 after SIGTERM, 129 after SIGHUP. */
  readonly exitStatus: number;
  dispose(): void;
}

/**
 * How to leave at once, by the signal that asked for the stop: a `kill` or a CI timeout's SIGTERM
 * comes from no terminal, so "Ctrl-C again" would name what did not stop it. Either signal works.
 */
const QUIT_HINT: Record<StopSignal, string> = {
  SIGINT: '(Ctrl-C again to quit at once)',
  SIGTERM: '(SIGTERM again, or Ctrl-C, to quit at once)',
  SIGHUP: '(SIGTERM to quit at once)',
};

/**
 * The one stop handling of a run that reports what finished (bench, demo, calibrate). The first
 * Ctrl-C or SIGTERM (a CI job's timeout, `kill`, a container stopping) aborts the run at its next
 * stopping point (a bench's next wait, calibrate's next block of PINGs) and lets it return what
 * finished: the caller prints it, its finally blocks remove the proxies, the private Redis and the
 * keys it wrote to a user's Redis, and it exits 130 or 143. A second signal leaves now (the 'exit'
 * handler still kills a private redis-server). `onFirst` gets the way to quit at once for its line.
 */
export function abortOnStop(onFirst: (quitHint: string) => void): StopRequest {
  const controller = new AbortController();
  stopStatus = 0;
  const stopOn = (name: StopSignal) => (): void => {
    keepGoingWithoutTerminal(name);
    if (controller.signal.aborted) process.exit(stopStatus);
    stopStatus = STOP_STATUS[name];
    onFirst(QUIT_HINT[name]);
    // The signal's name is the abort's reason: a report says which stopped it (calibrate's verdict).
    controller.abort(name);
  };
  const handlers = STOP_SIGNALS.map((name) => [name, stopOn(name)] as const);
  for (const [name, handler] of handlers) process.on(name, handler);
  return {
    signal: controller.signal,
    get exitStatus() {
      return stopStatus;
    },
    dispose: () => {
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}

/** What a cluster bench says on the first Ctrl-C or SIGTERM: its stopping point is the end of a sample. */
export const stoppingAfterSample = (quitHint: string): string => `redis-rtt: stopping after the sample in flight ${quitHint}\n`;

/**
 * A long-running command's stop: the first SIGINT, SIGTERM or SIGHUP, said on stderr ("SIGINT, closing",
 * after `prefix`), then all let go. `prefix` names the command ("redis-rtt server: ").
 */
export function untilStopSignal(prefix = 'redis-rtt: '): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (signal: StopSignal): void => {
      for (const [name, handler] of handlers) process.off(name, handler);
      keepGoingWithoutTerminal(signal);
      process.stderr.write(`${prefix}${signal}, closing\n`);
      resolve();
    };
    const handlers = STOP_SIGNALS.map((name) => [name, (): void => stop(name)] as const);
    for (const [name, handler] of handlers) process.on(name, handler);
  });
}
