import type { Command } from 'commander';

// Placeholder: replaced by the module that implements `redis-rtt calibrate`.
export function registerCalibrate(program: Command): void {
  program.command('calibrate').description('(not implemented yet)');
}
