import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { DelayLine } from '../../src/link/delay-line.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import type { Direction } from '../../src/stage/types.js';
import { TapAfterForward, type StreamTap } from '../../src/tap/tap-after.js';

/** A delay line whose deliveries go to `wire` and are reported through a TapAfterForward on one side. */
function setup(delayNs: number, direction: Direction = 'up', seenAt?: () => number) {
  const clock = new FakeClock();
  const scheduler = new ManualScheduler(clock);
  const log: string[] = [];
  let side: TapAfterForward | undefined;
  const line = new DelayLine({
    scheduler,
    sampleDelayNs: () => delayNs,
    bandwidthBps: () => 0,
    deliver: (chunks, endOffset, nowNs) => {
      log.push(`wire ${Buffer.concat(chunks).toString()}`);
      side!.written(endOffset, nowNs);
    },
    onEnd: () => {},
  });
  const half = (d: Direction): Pick<StreamTap, 'upChunk' | 'upWritten'> => ({
    upChunk: (chunk, nowNs) => void log.push(`${d}: tap saw ${chunk.toString()} @${nowNs}`),
    upWritten: (endOffset, nowNs) => void log.push(`${d}: tap sent ${endOffset} @${nowNs}`),
  });
  const up = half('up');
  const down = half('down');
  const tap: StreamTap = { ...up, downChunk: down.upChunk, downWritten: down.upWritten };
  side = new TapAfterForward(line, tap, direction, { before: { beforeRequest: () => void log.push('before') }, seenAt });
  return { clock, scheduler, side, log };
}

describe('TapAfterForward', () => {
  it('with no delay the bytes reach the wire before the tap parses them, and the tap hears of the send after', () => {
    const { side, log } = setup(0);
    side.push(Buffer.from('PING'), 5_000);
    side.push(Buffer.from('ECHO'), 9_000);
    expect(log).toEqual([
      'before',
      'wire PING',
      'up: tap saw PING @5000',
      'up: tap sent 4 @5000',
      'before',
      'wire ECHO',
      'up: tap saw ECHO @9000',
      'up: tap sent 8 @9000',
    ]);
  });

  it('with a delay the tap sees the chunk on arrival and the send when it happens', () => {
    const { clock, scheduler, side, log } = setup(100_000);
    clock.setNs(1_000);
    side.push(Buffer.from('GET'), 1_000);
    expect(log).toEqual(['before', 'up: tap saw GET @1000']);
    scheduler.runUntil(101_000);
    expect(log).toEqual(['before', 'up: tap saw GET @1000', 'wire GET', 'up: tap sent 3 @101000']);
  });

  it('a down side calls the down half of the tap, stamped when the bytes really arrived when that is given', () => {
    const { side, log } = setup(0, 'down', () => 700);
    side.push(Buffer.from('+OK\r\n'), 5_000);
    expect(log).toEqual(['before', 'wire +OK\r\n', 'down: tap saw +OK\r\n @700', 'down: tap sent 5 @5000']);
  });
});
