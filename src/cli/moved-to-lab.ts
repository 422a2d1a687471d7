import type { Command } from 'commander';

/**
 * `overhead` and `bench-framer` measure the tool itself, so they live in the repository's lab/, not
 * in the package: a stub keeps the old names pointing there.
 */
const MOVED: Record<string, string> = {
  overhead: 'npm run lab:overhead',
  'bench-framer': 'npm run lab:bench-framer',
};

export function registerMovedToLab(program: Command): void {
  for (const [name, script] of Object.entries(MOVED)) {
    program
      .command(name, { hidden: true })
      .description(`moved to the lab: ${script} (in a clone of the repository)`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        process.stderr.write(`redis-rtt: \`${name}\` moved to the lab: run \`${script}\` in a clone of the repository\n`);
        process.exitCode = 2;
      });
  }
}
