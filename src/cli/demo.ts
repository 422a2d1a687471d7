import type { Command } from 'commander';

// Placeholder: replaced by the module that implements `redis-rtt demo`.
export function registerDemo(program: Command): void {
  program.command('demo').description('(not implemented yet)');
}
