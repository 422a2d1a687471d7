/**
 * Every family GET /metrics serves is named in the docs (docs/counters.md's `/metrics`, or the page
 * it points to for its part: self-report.md, tls.md), in full or as the `_suffix` shorthand those
 * lists use after a family of the same stem. The toxics' family and the labels of the error families
 * were served but named nowhere.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newLossCounters } from '../../src/link/loss-model.js';
import { renderPrometheus } from '../../src/stats/prometheus.js';
import { newTlsCounters } from '../../src/tls/counters.js';
import { toxicFamily } from '../../src/toxics/metrics.js';
import { SNAPSHOT } from '../stats/snapshot-fixture.js';

const doc = (name: string): string => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');
const counters = doc('counters.md');
const metricsSection = counters.slice(counters.indexOf('## `/metrics`'), counters.indexOf('\n## ', counters.indexOf('## `/metrics`') + 1));
const docs = [metricsSection, doc('self-report.md'), doc('tls.md')].join('\n');

describe('/metrics families in the docs', () => {
  it('names every family a cluster proxy with TLS, loss and toxics serves', () => {
    const node = { upstream: '127.0.0.1:7000', counters: SNAPSHOT.totals, connections: SNAPSHOT.connections, linkSettings: SNAPSHOT.link };
    const snapshot = { ...SNAPSHOT, tls: newTlsCounters(), loss: { up: newLossCounters(), down: newLossCounters() }, cluster: { nodes: [node] } };
    const text = renderPrometheus(snapshot, [toxicFamily([{ name: 'lat', type: 'latency', stream: 'downstream', applications: 1 }])]);
    const families = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
    expect(families.length).toBeGreaterThan(25);
    // The shorthand drops `redis_rtt_` and a stem word (`link`, `loss`): `_down_delay_seconds`.
    const named = (f: string): boolean => docs.includes(`\`${f}`) || docs.includes(`\`_${f.split('_').slice(3).join('_')}\``);
    expect(families.filter((f) => !named(f))).toEqual([]);
  });

  it('gives the labels of the error families', () => {
    expect(metricsSection).toContain('`redis_rtt_errors_total{command}`');
    expect(metricsSection).toContain('`redis_rtt_error_replies_total{prefix}`');
  });
});
