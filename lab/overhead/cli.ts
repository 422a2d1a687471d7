import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { runOverhead } from './overhead.js';
import { renderOverhead } from './overhead-render.js';
import { parseDurationUs, parsePositiveInt } from '../../src/units.js';
import { COMPENSATE_HELP, parseCompensateFlag } from '../../src/cli/compensate-flag.js';

export function registerOverhead(program: Command): void {
  program
    .command('overhead')
    .description(
      "Measure the proxy's own cost side by side in one run: redis-benchmark throughput direct, through " +
        'a zero-delay proxy and through a bare Node pipe (-c 1 -P 1 and -c 50 -P 16), and N sequential SETs ' +
        'through a delayed link vs the arithmetic N x (RTT + direct per-command time). Needs redis-server ' +
        'and redis-benchmark.',
    )
    .option('--repeat <n>', 'repetitions (direct, proxy and pipe in rotated order within each, after a warm-up)', '3')
    .option('-n, --seq-n <n>', 'sequential SETs per repetition', '1000')
    .option('--rtt <duration>', 'link RTT for the sequential check', '1ms')
    .option('--no-tap', 'measure the proxy as a plain byte pipe (no RESP parsing)')
    .option(
      '--compensate <calibrate|auto|duration|file>',
      `the sequential link's compensation: ${COMPENSATE_HELP}; calibrate: measure the link against the private Redis first. ` +
        'Unless auto, the same SETs also run through a hop-only proxy beside it',
      'calibrate',
    )
    .option('--json <file>', 'also write the JSON result')
    .action(async (flags: { repeat: string; seqN: string; rtt: string; tap: boolean; compensate: string; json?: string }) => {
      const report = await runOverhead({
        compensationUs: flags.compensate === 'calibrate' ? 'calibrate' : parseCompensateFlag(flags.compensate),
        repeat: parsePositiveInt(flags.repeat, '--repeat', 100),
        seqN: parsePositiveInt(flags.seqN, '--seq-n', 1_000_000),
        linkRttUs: parseDurationUs(flags.rtt, '--rtt'),
        tap: flags.tap,
        progress: (l) => process.stderr.write(l + '\n'),
      });
      process.stdout.write(renderOverhead(report));
      if (flags.json) await writeFile(flags.json, JSON.stringify(report, null, 2) + '\n');
    });
}
