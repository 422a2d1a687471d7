import { spread, type Spread } from '../../src/numbers/quantiles.js';
import { chunk, replyStream, setRequestStream } from './bench-streams.js';
import { ReplyFramer } from '../../src/resp/reply-framer.js';
import { requestCommandName } from '../../src/resp/request-frame.js';
import { RequestFramer } from '../../src/resp/request-framer.js';
import type { ReplyFrame, RequestFrame } from '../../src/resp/types.js';

export interface FramerBenchOptions {
  /** Frames in each stream. @default 300000 */
  frames?: number;
  /** Measured repetitions (after warm-up); the median is reported. @default 7 */
  repeat?: number;
  /** Size of the chunks fed, as socket reads would deliver them. @default 16384 */
  chunkBytes?: number;
  /** Size of each SET value / bulk reply. @default 16 */
  valueBytes?: number;
}

export const DEFAULT_FRAMER_BENCH_OPTIONS: Required<FramerBenchOptions> = {
  frames: 300_000,
  repeat: 7,
  chunkBytes: 16 * 1024,
  valueBytes: 16,
};

/** Frames per second over the repetitions. */
export type RateSummary = Spread;

/** The same figures timed by CPU time. */
export interface CpuRates {
  framer: RateSummary;
  framerNamed: RateSummary;
  parser: RateSummary;
  ratio: number;
  replyFramer: RateSummary;
  replyParser: RateSummary;
  replyRatio: number;
}

export interface FramerBenchResult {
  options: Required<FramerBenchOptions>;
  /**
   * Rates below are wall-clock. `cpu` holds the same runs timed by process CPU time, steadier on a
   * busy machine (other processes' time is not counted; our own GC threads' time is).
   */
  cpu: CpuRates;
  requestStreamBytes: number;
  replyStreamBytes: number;
  /** RequestFramer on `SET key value` requests, sink counting frames. */
  framerFramesPerSec: number;
  framer: RateSummary;
  /** The same, with the sink also naming every command (what the tap does). */
  framerNamed: RateSummary;
  /** redis-parser (returnBuffers) on the same stream, same run. */
  parserFramesPerSec: number;
  parser: RateSummary;
  /** Median over rounds of framer rate / parser rate in the same round. */
  ratio: number;
  /** ReplyFramer on `+OK` / bulk replies, and redis-parser on the same stream. */
  replyFramer: RateSummary;
  replyParser: RateSummary;
  replyRatio: number;
}

type Runner = (chunks: Buffer[]) => number;

/**
 * Feeds the same stream to RequestFramer and to redis-parser, alternating them so drift in the
 * machine's speed hits both alike; likewise ReplyFramer on a reply stream. Each repetition uses
 * a fresh framer or parser; warm-up rounds let the JIT settle first.
 */
export async function runFramerBench(options: FramerBenchOptions = {}): Promise<FramerBenchResult> {
  const opts = { ...DEFAULT_FRAMER_BENCH_OPTIONS, ...options };
  const { default: RedisParser } = await import('redis-parser').catch(() => {
    throw new Error('bench-framer compares against redis-parser: install it (npm install redis-parser)');
  });
  const requests = setRequestStream(opts.frames, opts.valueBytes);
  const replies = replyStream(opts.frames, opts.valueBytes);
  const requestChunks = chunk(requests, opts.chunkBytes);
  const replyChunks = chunk(replies, opts.chunkBytes);

  const parserRun: Runner = (chunks) => {
    let n = 0;
    const parser = new RedisParser({
      returnBuffers: true,
      returnReply: () => void n++,
      returnError: () => void n++,
    });
    for (const c of chunks) parser.execute(c);
    return n;
  };
  const framerRun: Runner = (chunks) => {
    const sink = { n: 0, frame(_f: RequestFrame) { this.n++; } };
    const framer = new RequestFramer(sink);
    for (const c of chunks) framer.push(c);
    return sink.n;
  };
  const namedRun: Runner = (chunks) => {
    const sink = { n: 0, last: '', frame(f: RequestFrame) { this.n++; this.last = requestCommandName(f); } };
    const framer = new RequestFramer(sink);
    for (const c of chunks) framer.push(c);
    return sink.n;
  };
  const replyRun: Runner = (chunks) => {
    const sink = { n: 0, frame(_f: ReplyFrame) { this.n++; } };
    const framer = new ReplyFramer(sink);
    for (const c of chunks) framer.push(c);
    return sink.n;
  };

  const runs: [string, Runner, Buffer[]][] = [
    ['framer', framerRun, requestChunks],
    ['parser', parserRun, requestChunks],
    ['named', namedRun, requestChunks],
    ['replyFramer', replyRun, replyChunks],
    ['replyParser', parserRun, replyChunks],
  ];
  const rates = new Map<string, number[]>(runs.map(([name]) => [name, []]));
  const cpuRates = new Map<string, number[]>(runs.map(([name]) => [name, []]));
  const warmup = 3;
  for (let round = 0; round < warmup + opts.repeat; round++) {
    for (const [name, run, chunks] of round % 2 === 0 ? runs : [...runs].reverse()) {
      const cpu0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const n = run(chunks);
      const ns = Number(process.hrtime.bigint() - t0);
      const cpu = process.cpuUsage(cpu0);
      if (n !== opts.frames) throw new Error(`${name} framed ${n} of ${opts.frames} frames`);
      if (round >= warmup) {
        rates.get(name)!.push((n * 1e9) / ns);
        cpuRates.get(name)!.push((n * 1e6) / Math.max(1, cpu.user + cpu.system));
      }
    }
    await new Promise((r) => setImmediate(r));
  }
  const s = (name: string) => summarize(rates.get(name)!);
  const c = (name: string) => summarize(cpuRates.get(name)!);
  const framer = s('framer');
  const parser = s('parser');
  const replyFramer = s('replyFramer');
  const replyParser = s('replyParser');
  // Each round runs every contender back to back, so a ratio within a round cancels the drift
  // of the machine's speed between rounds; the median of those is the ratio reported.
  const pairedRatio = (m: Map<string, number[]>, a: string, b: string) =>
    summarize(m.get(a)!.map((rate, i) => rate / m.get(b)![i]!)).median;
  const cpu: CpuRates = {
    framer: c('framer'),
    framerNamed: c('named'),
    parser: c('parser'),
    ratio: pairedRatio(cpuRates, 'framer', 'parser'),
    replyFramer: c('replyFramer'),
    replyParser: c('replyParser'),
    replyRatio: pairedRatio(cpuRates, 'replyFramer', 'replyParser'),
  };
  return {
    options: opts,
    cpu,
    requestStreamBytes: requests.length,
    replyStreamBytes: replies.length,
    framerFramesPerSec: framer.median,
    framer,
    framerNamed: s('named'),
    parserFramesPerSec: parser.median,
    parser,
    ratio: pairedRatio(rates, 'framer', 'parser'),
    replyFramer,
    replyParser,
    replyRatio: pairedRatio(rates, 'replyFramer', 'replyParser'),
  };
}

function summarize(values: number[]): RateSummary {
  return spread(values);
}
