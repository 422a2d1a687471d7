import type { Command } from 'commander';

// Placeholder: replaced by the module that implements `redis-rtt proxy`.
export function registerProxy(program: Command): void {
  program.command('proxy').description('(not implemented yet)');
}
