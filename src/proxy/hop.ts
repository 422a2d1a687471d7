import net from 'node:net';
import { realClock } from '../clock.js';
import { median } from '../numbers/quantiles.js';
import { newTimer } from '../link/timer-heap.js';
import { sharedScheduler } from '../link/shared-scheduler.js';
import { parseWith, wholeNumber } from '../validation/schema.js';

export interface HopEstimate {
  /** Median one-way loopback transit seen by this process (write -> 'data' on the other socket). */
  transitUs: number;
  /** Median lateness of the precise scheduler (fire time - due time) for a near deadline. */
  schedulerLateUs: number;
  /** What to take off each one-way delay: transit + lateness. */
  perDirectionUs: number;
}

/**
 * Measures what the proxy itself adds per direction, in this process, now: the extra loopback hop
 * (the client's bytes reach us, then must cross loopback again to Redis) and the scheduler's
 * lateness. Subtracting it makes a client see direct + configured instead of direct + configured
 * + hop. Quick (docs/measurements.md). Noisy machines give noisy estimates: `calibrate` reports the
 * result.
 */
export async function measureHop(samples = 300): Promise<HopEstimate> {
  // Exported: 0, -1 or 'x' measured nothing and resolved NaN, and Infinity never resolved.
  parseWith(wholeNumber(1), samples, () => 'measureHop(samples)');
  const server = net.createServer({ noDelay: true });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const a = net.connect({ port, host: '127.0.0.1', noDelay: true });
  await new Promise((resolve) => a.once('connect', resolve));
  const b = await accepted;
  b.setNoDelay(true);
  b.on('data', (d) => b.write(d));
  const rtts: number[] = [];
  const one = Buffer.from('x');
  for (let i = 0; i < samples + 30; i++) {
    const t0 = realClock.nowNs();
    a.write(one);
    await new Promise((resolve) => a.once('data', resolve));
    if (i >= 30) rtts.push((realClock.nowNs() - t0) / 1000);
  }
  a.destroy();
  b.destroy();
  server.close();

  const transitUs = median(rtts) / 2;
  const schedulerLateUs = await measureSchedulerLatenessUs();
  return { transitUs, schedulerLateUs, perDirectionUs: Math.round(transitUs + schedulerLateUs) };
}

/** Median lateness of the precise scheduler for a deadline 100 us away. */
export async function measureSchedulerLatenessUs(samples = 100): Promise<number> {
  const scheduler = sharedScheduler();
  const late: number[] = [];
  // One timer armed again and again, as a delay line does: the scheduler sees one source.
  let done: () => void = () => undefined;
  let due = 0;
  const timer = newTimer(() => {
    late.push((realClock.nowNs() - due) / 1000);
    done();
  });
  for (let i = 0; i < samples; i++) {
    due = realClock.nowNs() + 100_000;
    await new Promise<void>((resolve) => {
      done = resolve;
      scheduler.arm(timer, due);
    });
  }
  return median(late);
}
