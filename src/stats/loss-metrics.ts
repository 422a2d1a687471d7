import type { MetricFamily } from './prometheus.js';
import type { StatsSnapshot } from './types.js';

/**
 * The `loss` block of /stats as Prometheus families (none on a link that never had loss): the
 * loss model's segments, losses, resends and the time resends cost, per direction (up: towards
 * Redis), and the configured loss rate.
 */
export function lossFamilies(s: StatsSnapshot): MetricFamily[] {
  const l = s.loss;
  if (l === undefined) return [];
  const perDirection = (name: string, help: string, type: 'counter' | 'gauge', value: (d: 'up' | 'down') => number): MetricFamily => ({
    name: `redis_rtt_${name}`,
    help,
    type,
    samples: (['up', 'down'] as const).map((direction) => ({ labels: { direction }, value: value(direction) })),
  });
  return [
    perDirection('link_loss_ratio', 'Configured probability that a segment is lost, per direction.', 'gauge', (d) => (d === 'up' ? s.link.lossUp : s.link.lossDown)),
    perDirection('loss_segments_total', 'Segments the loss model cut chunks into (first sends), per direction.', 'counter', (d) => l[d].segments),
    perDirection('loss_lost_total', 'Transmissions the loss model lost (first sends and resends), per direction.', 'counter', (d) => l[d].lost),
    perDirection('loss_retransmitted_total', 'Resends of lost segments, per direction.', 'counter', (d) => l[d].retransmitted),
    perDirection(
      'loss_retransmit_seconds_total',
      'Sum over lost segments of the time from first send to the resend that got through, seconds, per direction.',
      'counter',
      (d) => l[d].retransmitNs / 1e9,
    ),
  ];
}
