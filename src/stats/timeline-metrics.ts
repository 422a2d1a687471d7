import type { MetricFamily } from './prometheus.js';
import type { StatsSnapshot } from './types.js';

/**
 * The `timeline` and `partition` blocks of /stats as Prometheus families (none on a constant link
 * that never had a partition). The link gauges (`redis_rtt_link_up_delay_seconds`) are the settings
 * under a wave or series, which never move: without these a graph of a moving link was flat, and a
 * partition left no trace in /metrics at all.
 */
export function timelineFamilies(s: StatsSnapshot): MetricFamily[] {
  const out: MetricFamily[] = [];
  const gauge = (name: string, help: string, value: number): MetricFamily => ({ name: `redis_rtt_${name}`, help, type: 'gauge', samples: [{ value }] });
  const t = s.timeline;
  if (t !== undefined) {
    const now = 'mean one-way delay now on a moving link (wave, schedule, series; before jitter), seconds';
    out.push(gauge('link_now_up_delay_seconds', `The ${now}, client to Redis.`, t.delaysUs.upUs / 1e6));
    out.push(gauge('link_now_down_delay_seconds', `The ${now}, Redis to client.`, t.delaysUs.downUs / 1e6));
  }
  const p = s.partition;
  if (p !== undefined) {
    out.push(gauge('partition_active', '1 while a partition holds the link, else 0 (present once one ran).', p.active ? 1 : 0));
    out.push(gauge('partition_reset_connections', 'Connections the last partition reset (their sender gave up).', p.resetConnections));
  }
  return out;
}
