import { describe, expect, it } from 'vitest';
import { progressPrinter } from '../../src/cli/bench-progress.js';
import type { BenchProgress } from '../../src/workload/bench.js';

/** A stream as progressPrinter reads it: only isTTY, columns and write. */
function fakeStream(isTTY: boolean, columns: number): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = { isTTY, columns, write: (s: string) => chunks.push(s) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, text: () => chunks.join('') };
}

const sample: BenchProgress = {
  type: 'sample',
  phase: 'timed',
  done: 1,
  total: 2,
  label: 'local seq incr n=200',
  sampleMs: 12.5,
  elapsedMs: 100,
  etaMs: 1000,
};

describe('bench progress', () => {
  it('on a terminal that reports 0 columns (a pty with no size) keeps the whole line', () => {
    const { stream, text } = fakeStream(true, 0);
    progressPrinter(stream).onEvent(sample);
    expect(text()).toBe('\r\x1b[2K[##########..........] 1/2 ETA 1 s  sample local seq incr n=200');
  });

  it('on a narrow terminal cuts the line to fit, one column spare', () => {
    const { stream, text } = fakeStream(true, 30);
    progressPrinter(stream).onEvent(sample);
    expect(text()).toBe('\r\x1b[2K[##########..........] 1/2 ET'); // 29 columns
  });

  it('off a terminal writes one plain line per sample, nothing redrawn', () => {
    const { stream, text } = fakeStream(false, 0);
    const p = progressPrinter(stream);
    p.onEvent(sample);
    p.done();
    expect(text()).toBe('redis-rtt: [1/2] sample local seq incr n=200 12.5 ms (ETA 1 s)\n');
  });
});
