import { describe, expect, it } from 'vitest';
import { punctualCorrected, ServiceTimes } from '../../../src/workload/open-loop/punctual.js';

const MS = 1e6;

function times(rows: [dueNs: number, serviceNs: number][]): ServiceTimes {
  const t = new ServiceTimes(1);
  for (const [due, service] of rows) t.add(due, service);
  return t;
}

/** The replay's corrected latencies, in us, in the order HDR keeps them (ascending). */
function replayed(t: ServiceTimes, connections: number): number[] {
  const h = punctualCorrected(t, connections);
  const out: number[] = [];
  for (let p = 1; p <= h.count; p++) out.push(h.valueAtPercentile((p / h.count) * 100));
  return out;
}

describe('punctualCorrected', () => {
  it('one connection: each command waits for the one before (due 0, 0.5, 1 ms; 0.8 ms each)', () => {
    const t = times([
      [0, 0.8 * MS],
      [0.5 * MS, 0.8 * MS],
      [1 * MS, 0.8 * MS],
    ]);
    // Done at 0.8, 1.6 and 2.4 ms: 0.8, 1.1 and 1.4 ms after due.
    expect(replayed(t, 1)).toEqual([800, 1100, 1400]);
  });

  it('two connections: nobody waits, so corrected is the service time', () => {
    const t = times([
      [0, 1.5 * MS],
      [1 * MS, 1.5 * MS],
      [2 * MS, 1.5 * MS],
    ]);
    expect(replayed(t, 2)).toEqual([1500, 1500, 1500]);
  });

  it('replays in due order whatever order the replies came in, on the connection that frees first', () => {
    // Due 0 (1.8 ms), 0.5, 1.0 and 1.5 ms (0.2 ms each) on two connections: the long one holds one
    // connection, the other three take turns on the second without waiting.
    const inReplyOrder = times([
      [0.5 * MS, 0.2 * MS],
      [1 * MS, 0.2 * MS],
      [1.5 * MS, 0.2 * MS],
      [0, 1.8 * MS],
    ]);
    expect(replayed(inReplyOrder, 2)).toEqual([200, 200, 200, 1800]);
    // With one connection the three wait for the long one: done at 2.0, 2.2 and 2.4 ms.
    expect(replayed(inReplyOrder, 1)).toEqual([900, 1200, 1500, 1800]);
  });

  it('grows past its first capacity and keeps every row', () => {
    const t = new ServiceTimes(16);
    for (let i = 0; i < 1000; i++) t.add(i * MS, 0.5 * MS);
    expect(t.count).toBe(1000);
    expect(t.dueNs[999]).toBe(999 * MS);
    const h = punctualCorrected(t, 1);
    expect([h.count, h.valueAtPercentile(0), h.valueAtPercentile(100)]).toEqual([1000, 500, 500]);
  });

  it('an empty run replays to an empty histogram', () => {
    expect(punctualCorrected(new ServiceTimes(0), 4).count).toBe(0);
  });
});
