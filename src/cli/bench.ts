import type { Command } from 'commander';

// Placeholder: replaced by the module that implements `redis-rtt bench`.
export function registerBench(program: Command): void {
  program.command('bench').description('(not implemented yet)');
}
