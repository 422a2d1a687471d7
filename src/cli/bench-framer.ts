import type { Command } from 'commander';

// Placeholder: replaced by the module that implements `redis-rtt bench-framer`.
export function registerBenchFramer(program: Command): void {
  program.command('bench-framer').description('(not implemented yet)');
}
