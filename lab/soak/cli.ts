import type { Command } from 'commander';
import { parseSoakArgs, soak } from './soak.js';

/** `soak [--seconds N] [--sample-seconds N] [--clients N] [--rtt-us N]`: exits 1 when handles or connections leak. */
export function registerSoak(program: Command): void {
  program
    .command('soak')
    .description('Steady redis-benchmark load through one in-process proxy; samples RSS and open handles.')
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption(false)
    .action(async (_opts: unknown, cmd: Command) => {
      const code = await soak(parseSoakArgs(cmd.args), (l) => process.stdout.write(`${l}\n`));
      process.exitCode = code;
    });
}
