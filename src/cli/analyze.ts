import type { Command } from 'commander';

// Placeholder: replaced by the module that implements `redis-rtt analyze`.
export function registerAnalyze(program: Command): void {
  program.command('analyze').description('(not implemented yet)');
}
