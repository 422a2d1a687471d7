import type { MetricFamily } from '../stats/prometheus.js';
import type { ToxicCount } from './toxic-set.js';

/** The Prometheus family of toxic applications (pure). */
export function toxicFamily(counts: readonly ToxicCount[]): MetricFamily {
  return {
    name: 'redis_rtt_toxic_applications_total',
    help: 'Times a toxic acted: connections for byte toxics (toxicity per connection), commands for Redis-aware ones.',
    type: 'counter',
    samples: counts.map((t) => ({ labels: { toxic: t.name, type: t.type, stream: t.stream }, value: t.applications })),
  };
}
