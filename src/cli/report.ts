import type { Command } from 'commander';

// Placeholder: replaced by the module that implements `redis-rtt report`.
export function registerReport(program: Command): void {
  program.command('report').description('(not implemented yet)');
}
