import type { Command } from 'commander';

/**
 * Names people type that are not commands, each with what to run instead: `overhead` and
 * `bench-framer` measure the tool itself, so they live in the repository's lab/, not in the
 * package; `record` is a flag of `proxy` (a trace of what crosses it), read back by `analyze`.
 * Without these, commander suggests the nearest name ("Did you mean report?").
 */
const POINTERS: Record<string, string> = {
  overhead: 'moved to the lab: run `npm run lab:overhead` in a clone of the repository',
  'bench-framer': 'moved to the lab: run `npm run lab:bench-framer` in a clone of the repository',
  record: 'is a flag of proxy: `redis-rtt proxy --upstream HOST:PORT --record FILE`, then `redis-rtt analyze FILE`',
};

export function registerPointerCommands(program: Command): void {
  for (const [name, instead] of Object.entries(POINTERS)) {
    program
      .command(name, { hidden: true })
      // A sentence with its subject: `redis-rtt help record` shows it under the usage line.
      .description(`\`${name}\` ${instead}`)
      // `record --help` printed "Usage: redis-rtt record [options]" over a sentence with no subject, and
      // exited 0, as if record were a command: it says what to run instead, as `record` does.
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        process.stderr.write(`redis-rtt: \`${name}\` ${instead}\n`);
        process.exitCode = 2;
      });
  }
}
