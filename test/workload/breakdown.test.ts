/**
 * breakdown.otherMs is never negative: the driver's CPU (in-process proxies included) overlaps link
 * waits, so link + server + CPU can exceed the median; "other" is then 0.
 */
import { describe, expect, it } from 'vitest';
import { parseLinkSpec } from '../../src/link/link-spec.js';
import { serializationNote } from '../../src/workload/bench.js';
import { deriveResults } from '../../src/workload/derive.js';
import { planConfigurations } from '../../src/workload/plan.js';
import type { SampleOutcome } from '../../src/workload/sample.js';

function resultWith(sample: Partial<SampleOutcome>) {
  const { configs } = planConfigurations({ links: [parseLinkSpec('cross-az')], modes: ['pipeline'], batches: [100], workloads: ['set'], n: 1000, repeat: 1, warmup: 0 });
  const s: SampleOutcome = { ms: 10, waitsUs: [1000], roundTrips: 10, bytesUp: 1, bytesDown: 1, serverMs: 0.5, clientCpuMs: 1, ...sample };
  return deriveResults([{ config: configs[0]!, samples: [s] }]).results[0]!;
}

describe('breakdown.otherMs', () => {
  it('is what link, server and CPU leave of the median when they fit inside it', () => {
    // 10 round trips x 1.2 ms = 12 ms of link on a 20 ms median, 0.5 ms server, 1 ms CPU: 6.5 ms other.
    expect(resultWith({ ms: 20 }).breakdown).toEqual({ linkWaitMs: 12, serverMs: 0.5, clientCpuMs: 1, otherMs: 6.5 });
  });

  it('is 0, not negative, when the CPU share passes 100% (driver plus in-process proxies)', () => {
    // Like the README's same-az pipeline 1000 row: median 7.0 ms, CPU 136% of it.
    const r = resultWith({ ms: 7, roundTrips: 1, clientCpuMs: 9.52 });
    expect(r.breakdown!.clientCpuMs / r.medianMs!).toBeGreaterThan(1);
    expect(r.breakdown!.otherMs).toBe(0);
  });
});

describe('a link with a bandwidth', () => {
  // model ms and the link share leave its serialisation out: 100 KB GETs at 100 mbit read +549% and "link 10%", unexplained.
  it('gets a note saying the serialisation its model and link share leave out, with the largest sample\'s', () => {
    const r = resultWith({ bytesUp: 50_000, bytesDown: 1_000_000 });
    expect(serializationNote('cross-az', 100e6, [r])).toBe(
      "cross-az: model ms and the link share count round trips x RTT only; its bandwidth adds each byte's serialisation, " +
        'up to 84.0 ms a sample here (1050000 bytes up and down at 100 mbit/s)',
    );
    expect(serializationNote('cross-az', 0, [r])).toBeUndefined();
  });
});
