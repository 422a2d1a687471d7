/**
 * A proxy process's reading leaves out what answering reads cost (src/workload/proxy-process/read-cpu.ts):
 * bench's per-sample `prx` is the difference of two readings, and the CPU was read before each
 * snapshot was built, so a short sample's proxy CPU held a whole read (11 ms the first time).
 */
import { describe, expect, it } from 'vitest';
import { ReadingCpu } from '../../src/workload/proxy-process/read-cpu.js';

describe('ReadingCpu', () => {
  it('a reading leaves out the CPU of every answer, its own and those before it', () => {
    let nowUs = 10_000;
    const cpu = new ReadingCpu(() => nowUs);
    const readings: number[] = [];
    const read = (answerUs: number): void =>
      cpu.answer((cpuUs) => {
        readings.push(cpuUs);
        nowUs += answerUs; // building and sending the snapshot
      });
    read(11_000); // the first read: cold code
    nowUs += 250; // the sample: the proxy's own work
    read(400);
    read(300); // back to back: no work between them
    expect(readings).toEqual([10_000, 10_250, 10_250]);
    expect(readings[1]! - readings[0]!).toBe(250);
  });
});
