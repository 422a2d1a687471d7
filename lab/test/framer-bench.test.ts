import { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { registerBenchFramer, renderFramerBench } from '../framer-bench/cli.js';
import { runFramerBench } from '../framer-bench/bench.js';

describe('framer benchmark', () => {
  it('measures both framers and redis-parser on the same streams', async () => {
    const r = await runFramerBench({ frames: 2000, repeat: 3 });
    for (const s of [r.framer, r.framerNamed, r.parser, r.replyFramer, r.replyParser]) {
      expect(s.min).toBeGreaterThan(0);
      expect(s.min).toBeLessThanOrEqual(s.median);
      expect(s.median).toBeLessThanOrEqual(s.max);
    }
    expect(r.ratio).toBeGreaterThan(0);
    expect(r.cpu.ratio).toBeGreaterThan(0);
    expect(r.framerFramesPerSec).toBe(r.framer.median);
    expect(renderFramerBench(r)).toMatch(/request ratio framer\/parser: \d+\.\d\dx/);
  });

  // A loose guard, far under the ~4x measured: it catches a fast path that starts allocating or
  // falls back to the state machine, not noise. (Under vitest the const enums are not inlined.)
  it('frames requests at least twice as fast as redis-parser parses them', async () => {
    const r = await runFramerBench({ frames: 100_000, repeat: 5 });
    console.log(`framer/redis-parser: ${r.ratio.toFixed(2)}x wall, ${r.cpu.ratio.toFixed(2)}x cpu`);
    expect(Math.max(r.ratio, r.cpu.ratio)).toBeGreaterThan(2);
  });

  it('is wired as `bench-framer --json`', async () => {
    const program = new Command().exitOverride();
    registerBenchFramer(program);
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
    try {
      await program.parseAsync(['node', 'redis-rtt', 'bench-framer', '--frames', '1000', '--repeat', '1', '--json']);
    } finally {
      spy.mockRestore();
    }
    const result = JSON.parse(out.join(''));
    expect(result.options).toMatchObject({ frames: 1000, repeat: 1 });
    expect(result.ratio).toBeGreaterThan(0);
  });

  it('rejects a bad flag value naming the flag', async () => {
    const program = new Command().exitOverride();
    registerBenchFramer(program);
    await expect(program.parseAsync(['node', 'redis-rtt', 'bench-framer', '--frames', 'lots'])).rejects.toThrow('--frames');
  });
});
