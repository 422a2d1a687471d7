import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { DelayLine } from '../../src/link/delay-line.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import { TapAfterForward } from '../../src/tap/tap-after.js';

/** A delay line whose deliveries go to `wire` and are reported through a TapAfterForward. */
function setup(delayNs: number) {
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
  side = new TapAfterForward(
    line,
    (chunk, nowNs) => log.push(`tap saw ${chunk.toString()} @${nowNs}`),
    (endOffset, nowNs) => log.push(`tap sent ${endOffset} @${nowNs}`),
  );
  return { clock, scheduler, side, log };
}

describe('TapAfterForward', () => {
  it('with no delay the bytes reach the wire before the tap parses them, and the tap hears of the send after', () => {
    const { side, log } = setup(0);
    side.push(Buffer.from('PING'), 5_000);
    side.push(Buffer.from('ECHO'), 9_000);
    expect(log).toEqual([
      'wire PING',
      'tap saw PING @5000',
      'tap sent 4 @5000',
      'wire ECHO',
      'tap saw ECHO @9000',
      'tap sent 8 @9000',
    ]);
  });

  it('with a delay the tap sees the chunk on arrival and the send when it happens', () => {
    const { clock, scheduler, side, log } = setup(100_000);
    clock.setNs(1_000);
    side.push(Buffer.from('GET'), 1_000);
    expect(log).toEqual(['tap saw GET @1000']);
    scheduler.runUntil(101_000);
    expect(log).toEqual(['tap saw GET @1000', 'wire GET', 'tap sent 3 @101000']);
  });
});
