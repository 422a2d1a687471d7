import { describe, expect, it } from 'vitest';
import { renderOpenLoopHtml } from '../../src/report/open-loop/html.js';
import { renderOpenLoopTable } from '../../src/report/open-loop/table.js';
import { LatencyHistogram } from '../../src/numbers/histogram.js';
import type { OpenLoopReport, OpenLoopResult, PercentilesUs } from '../../src/workload/open-loop/types.js';

const pct = (base: number): PercentilesUs => ({ p50: base, p90: base * 2, p99: base * 3, p999: base * 4, p9999: base * 5, max: base * 6 });
function hist(values: number[]): string {
  const h = new LatencyHistogram();
  for (const v of values) h.record(v);
  return h.encode();
}

function row(over: Partial<OpenLoopResult>): OpenLoopResult {
  return {
    link: 'cross-az',
    linkRttUs: 1200,
    mode: 'seq',
    arrival: 'poisson',
    clients: 8,
    targetRate: 2000,
    achievedRate: 1990,
    durationS: 5,
    drainS: 0,
    scheduled: 10_000,
    sent: 10_000,
    completed: 10_000,
    failed: 0,
    unsent: 0,
    correctedLatencyUs: pct(1300),
    uncorrectedLatencyUs: pct(1250),
    correctedP99FirstHalfUs: 3900,
    correctedP99SecondHalfUs: 3900,
    correctedMeanUs: 1400,
    uncorrectedMeanUs: 1300,
    batchWindowUs: 0,
    maxBatch: 1,
    batches: 10_000,
    roundTrips: 10_000,
    batchWaitUs: { p50: 0, p99: 0, mean: 0 },
    latenessUs: { p50: 3, p99: 80, max: 900 },
    driverSaturated: false,
    backlog: { bucketMs: 25, max: [0, 1, 2], peak: 2 },
    littleConcurrency: 2.4,
    measuredConcurrency: 2.7,
    perClientRate: 248.8,
    processCpuPct: 41.5,
    saturated: null,
    histograms: { corrected: hist([1300, 1400, 3900]), uncorrected: hist([1250, 1300, 3700]) },
    ...over,
  };
}

const report: OpenLoopReport = {
  kind: 'open-loop',
  environment: { node: 'v20', redis: '7.0.15', ioredis: '6', redisRtt: '0.1.0', cpus: 2, cpuModel: 'x', platform: 'linux', startedAt: '2026-11-30T00:00:00.000Z' },
  sloUs: 5000,
  results: [
    row({}),
    row({ batchWindowUs: 1000, maxBatch: 16, batches: 2500, roundTrips: 2400, batchWaitUs: { p50: 500, p99: 990, mean: 500 }, correctedLatencyUs: pct(1800) }),
    row({ targetRate: 5000, achievedRate: 4000, saturated: 'rate', note: 'something to say' }),
    row({ targetRate: 1000, driverSaturated: true }),
  ],
  notes: ['a run note'],
};

describe('open-loop report renderers', () => {
  const text = renderOpenLoopTable(report);

  it('names connection set-up (connected before timing) in the table and the HTML, only when the report has it', () => {
    const withSetup: OpenLoopReport = { ...report, connectionSetup: { openedWhileTimed: 0, roundTrips: 2, steps: ['TCP connect', 'HELLO'], links: [{ link: 'cross-az', rttUs: 1200, ms: 2.4 }] } };
    const note = 'connections opened before timing: set-up is not in these figures; each new connection would cost 2 RTTs (TCP connect + HELLO) = 2.40 ms on cross-az';
    expect(renderOpenLoopTable(withSetup)).toContain(note);
    expect(renderOpenLoopHtml(withSetup)).toContain(note);
    expect(text).not.toContain('connections opened before timing');
  });

  it('puts corrected and uncorrected percentiles side by side', () => {
    const line = text.split('\n').find((l) => l.startsWith('cross-az seq C=8 ') && l.includes('1.3ms'))!;
    expect(line).toMatch(/cross-az seq C=8\s+2000\s+1\.3ms\s+2\.6ms\s+3\.9ms\s+5\.2ms\s+6\.5ms\s+7\.8ms\s+\|\s+1\.25ms\s+2\.5ms\s+3\.75ms\s+5ms\s+6\.25ms\s+7\.5ms$/);
  });

  it('says who saturated: the link (rate or slo) or the driver', () => {
    expect(text).toMatch(/^cross-az seq C=8\s+5000\s+4000\s+.*yes \(rate\)$/m);
    expect(text).toMatch(/^cross-az seq C=8\s+1000\s+.*driver$/m);
    expect(text).toContain('cross-az seq C=8: something to say');
    expect(text).toContain('a run note');
  });

  it('puts the batch wait next to the round trips saved against no window', () => {
    expect(text).toMatch(/^cross-az seq C=8 w=1ms\s+2000\s+16\s+2500\s+2400\s+76%\s+500us\s+990us\s+5\.4ms\s+\+1\.5ms$/m);
    expect(text).toContain('cross-az seq C=8 2000/s: no window pays; the lowest corrected p99 (3.9ms) is without one');
  });

  it('the HTML page has the rate curve and the percentile spectrum, corrected and uncorrected', () => {
    const html = renderOpenLoopHtml(report);
    expect(html).toContain('data-chart="rate cross-az"');
    expect(html).toContain('data-series="cross-az seq C=8 corrected p99"');
    expect(html).not.toContain('data-series="cross-az seq C=8 w=1ms corrected p99"'); // one rate only: no curve
    expect(html).toContain('data-series="cross-az seq C=8 uncorrected p99"');
    expect(html).toContain('data-chart="spectrum cross-az"');
    expect(html).toContain('--slo 5ms');
    expect(html).toContain('data-chart="backlog cross-az"');
    expect(html).not.toMatch(/<script/);
  });

  it('the HTML names the row each run note is about, as the table does (several runs share a link)', () => {
    const html = renderOpenLoopHtml(report);
    expect(html).toContain('<li>cross-az seq C=8: something to say</li>');
  });

  it('the backlog chart counts whole commands on its axis (a peak of 2 had ticks at halves, printed 0, 1, 1, 2)', () => {
    const html = renderOpenLoopHtml(report);
    const chart = html.slice(html.indexOf('data-chart="backlog cross-az"'));
    const yLabels = [...chart.slice(0, chart.indexOf('</svg>')).matchAll(/<text[^>]*text-anchor="end"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(yLabels).toEqual(['0', '1', '2']);
  });
});
