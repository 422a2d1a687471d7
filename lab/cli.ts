/**
 * The lab's entry: measurements of redis-rtt itself, not shipped in the package.
 *   npm run lab:overhead -- --repeat 5
 *   npm run lab:bench-framer
 *   npm run lab:soak -- --seconds 120
 *   TOXIPROXY_SERVER=/path/to/toxiproxy-server npm run lab:vs-toxiproxy
 * (each builds dist/ and dist-lab/ first, then runs `node dist-lab/lab/cli.js <command>`).
 */
import { Command } from 'commander';
import { runProgram } from '../src/cli/main.js';
import { registerBenchFramer } from './framer-bench/cli.js';
import { registerOverhead } from './overhead/cli.js';
import { registerSoak } from './soak/cli.js';
import { registerVsToxiproxy } from './vs-toxiproxy/cli.js';

export function buildLabProgram(): Command {
  const program = new Command('redis-rtt-lab')
    .description("Measure redis-rtt itself: the proxy's overhead, the framers' speed, a soak under load, side by side with toxiproxy.")
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerOverhead(program);
  registerBenchFramer(program);
  registerSoak(program);
  registerVsToxiproxy(program);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

export function runLab(argv: string[]): Promise<number> {
  return runProgram(buildLabProgram(), argv);
}

if (process.argv[1] && /[\\/]lab[\\/]cli\.js$/.test(process.argv[1])) {
  runLab(process.argv).then((code) => (process.exitCode = code));
}
