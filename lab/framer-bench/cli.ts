import type { Command } from 'commander';
import { runFramerBench, type FramerBenchResult, type RateSummary } from './bench.js';
import { parsePositiveInt } from '../../src/units.js';

/** The framer must frame requests at least this many times as fast as redis-parser parses them. */
export const FRAMER_TARGET_RATIO = 3;

interface BenchFramerFlags {
  frames: string;
  repeat: string;
  chunkBytes: string;
  valueBytes: string;
  json?: boolean;
}

/** `redis-rtt bench-framer`: RequestFramer / ReplyFramer against redis-parser, same stream, same run. */
export function registerBenchFramer(program: Command): void {
  program
    .command('bench-framer')
    .description(
      'Frames/s of the RESP framers against redis-parser on the same SET request stream and +OK/bulk ' +
        'reply stream (fed in socket-sized chunks, warm, median of several runs).',
    )
    .option('--frames <n>', 'frames in each stream', '300000')
    .option('--repeat <r>', 'measured repetitions; the median is reported', '7')
    .option('--chunk-bytes <n>', 'bytes per chunk fed', '16384')
    .option('--value-bytes <n>', 'bytes of each SET value and bulk reply', '16')
    .option('--json', 'print the full result as JSON on stdout')
    .action(async (flags: BenchFramerFlags) => {
      const result = await runFramerBench({
        frames: parsePositiveInt(flags.frames, '--frames', 50_000_000),
        repeat: parsePositiveInt(flags.repeat, '--repeat', 1000),
        chunkBytes: parsePositiveInt(flags.chunkBytes, '--chunk-bytes', 64 * 1024 * 1024),
        valueBytes: parsePositiveInt(flags.valueBytes, '--value-bytes', 64 * 1024 * 1024),
      });
      if (flags.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else process.stderr.write(renderFramerBench(result));
    });
}

/** The human-readable report (pure: result in, text out). */
export function renderFramerBench(r: FramerBenchResult): string {
  const o = r.options;
  const row = (label: string, wall: RateSummary, cpu: RateSummary) =>
    `  ${label.padEnd(32)} ${mfps(wall.median).padStart(7)}  ${`${mfps(wall.min)}-${mfps(wall.max)}`.padEnd(13)}` +
    ` ${mfps(cpu.median).padStart(7)}  ${mfps(cpu.min)}-${mfps(cpu.max)}\n`;
  const verdict = Math.min(r.ratio, r.cpu.ratio) >= FRAMER_TARGET_RATIO ? 'met' : 'NOT met';
  return (
    `bench-framer: ${o.frames} frames x ${o.repeat} runs, ${o.chunkBytes}-byte chunks, ${o.valueBytes}-byte values\n` +
    `  ${'million frames/s'.padEnd(32)} ${'wall'.padStart(7)}  ${'min-max'.padEnd(13)}` +
    ` ${'cpu'.padStart(7)}  min-max\n` +
    row('requests: RequestFramer', r.framer, r.cpu.framer) +
    row('requests: RequestFramer + name', r.framerNamed, r.cpu.framerNamed) +
    row('requests: redis-parser', r.parser, r.cpu.parser) +
    row('replies: ReplyFramer', r.replyFramer, r.cpu.replyFramer) +
    row('replies: redis-parser', r.replyParser, r.cpu.replyParser) +
    `  request ratio framer/parser: ${r.ratio.toFixed(2)}x wall, ${r.cpu.ratio.toFixed(2)}x cpu` +
    ` (target >= ${FRAMER_TARGET_RATIO}x: ${verdict})\n` +
    `  reply ratio framer/parser:   ${r.replyRatio.toFixed(2)}x wall, ${r.cpu.replyRatio.toFixed(2)}x cpu\n`
  );
}

function mfps(framesPerSec: number): string {
  return (framesPerSec / 1e6).toFixed(2);
}
