import { Command, CommanderError } from 'commander';
import { ConfigError, ListenError, NetworkError, RedisSpawnError } from '../errors.js';
import { VERSION } from '../version.js';
import { closeGoneTerminalAtExit, requestedStopStatus } from './stop-request.js';
import { registerProxy } from './proxy.js';
import { registerCalibrate } from './calibrate.js';
import { registerBench } from './bench.js';
import { registerDemo } from './demo.js';
import { registerReport } from './report.js';
import { registerAnalyze } from './analyze.js';
import { registerPointerCommands } from './pointer-commands.js';
import { registerServer } from './server-command.js';

/** Exit status for bad usage (a flag with a bad value), as in most Unix tools. */
export const EXIT_USAGE = 2;

/**
 * A bind refused for the address given, as an address in use is: not this machine's (EADDRNOTAVAIL),
 * a port below 1024 or a socket in a folder it may not write (EACCES), a folder that is not there,
 * a host name that names nothing (ENOTFOUND), an IPv6 link-local address without its %interface (EINVAL).
 */
const BAD_ADDRESS_CODES = new Set(['EADDRNOTAVAIL', 'EACCES', 'ENOENT', 'ENOTDIR', 'ENOTFOUND', 'EINVAL']);

export function buildProgram(): Command {
  const program = new Command('redis-rtt')
    .version(VERSION)
    .description(
      'Put a real network between a Redis client and Redis on one machine, and measure what it costs. ' +
        'A byte-exact RESP-aware proxy adds a one-way delay per direction (jitter, bandwidth, handshake) ' +
        'and counts commands, replies and round trips; a driver runs the same work in different shapes ' +
        '(loop, pipeline, MULTI, MGET/MSET, Lua, auto-pipelining) across links and compares them.\n\n' +
        'Start with `redis-rtt demo` (no setup), then `redis-rtt <command> --help`.',
    )
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput(CLI_OUTPUT)
    .exitOverride()
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  redis-rtt demo                                 # no setup: five links compared in about a minute\n' +
        '  redis-rtt bench --links direct,same-az,cross-az --modes seq,pipeline --batch 8,64,256\n' +
        '  redis-rtt proxy --upstream 127.0.0.1:6379 --listen 127.0.0.1:6380 --preset cross-az --control 127.0.0.1:7070\n' +
        '  redis-rtt analyze app.trace --rtt 1.2ms,85ms   # a trace written by proxy --record app.trace\n' +
        '  redis-rtt server                               # toxiproxy\'s HTTP API on 127.0.0.1:8474\n' +
        '  redis-rtt proxy --help                         # every flag of one command, with examples',
    );
  registerProxy(program);
  registerCalibrate(program);
  registerBench(program);
  registerDemo(program);
  registerReport(program);
  registerAnalyze(program);
  registerPointerCommands(program);
  registerServer(program);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput(CLI_OUTPUT);
  return program;
}

/** Every CLI error starts with the same prefix: commander's "error: ..." becomes "redis-rtt: ...". */
export const ERROR_PREFIX = 'redis-rtt: ';
const CLI_OUTPUT = {
  outputError: (text: string, write: (s: string) => void): void => write(text.replace(/^error: /, ERROR_PREFIX)),
};

/** Runs the CLI; resolves to the process exit status. */
export async function main(argv: string[]): Promise<number> {
  closeGoneTerminalAtExit();
  return runProgram(buildProgram(), argv);
}

/** Parses argv with a program and maps errors to exit statuses (2: bad usage); shared with the lab's entry. */
export async function runProgram(program: Command, argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    return reportError(err);
  }
}

function reportError(err: unknown): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
    // Help asked for is 0; help shown for want of a command (none given, `help bogus`) is bad usage.
    if (err.code === 'commander.help') return err.exitCode === 0 ? 0 : EXIT_USAGE;
    // commander already printed its message
    return EXIT_USAGE;
  }
  if (err instanceof ConfigError) {
    process.stderr.write(`${ERROR_PREFIX}${err.message}\n`);
    return EXIT_USAGE;
  }
  if (requestedStopStatus() !== 0) {
    // Ctrl-C or SIGTERM during start-up: what was starting died of the same signal. One line, 130 or 143.
    process.stderr.write(`${ERROR_PREFIX}stopped on request (${err instanceof Error ? err.message.split('\n')[0] : String(err)})\n`);
    return requestedStopStatus();
  }
  if (err instanceof NetworkError || err instanceof RedisSpawnError) {
    process.stderr.write(`${ERROR_PREFIX}${err.message}\n`);
    return err instanceof NetworkError && (err.code === 'EADDRINUSE' || (err instanceof ListenError && BAD_ADDRESS_CODES.has(err.code ?? ''))) ? EXIT_USAGE : 1;
  }
  process.stderr.write(`${ERROR_PREFIX}${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}
