import type { MetricFamily } from './prometheus.js';
import type { StatsSnapshot } from './types.js';

/**
 * The `tls` block of /stats as Prometheus families (none without TLS): TLS bytes on the wire and
 * handshakes, by side (client: clients' sockets, upstream: the sockets to Redis). The plaintext
 * bytes are `redis_rtt_bytes_total`.
 */
export function tlsFamilies(s: StatsSnapshot): MetricFamily[] {
  const t = s.tls;
  if (t === undefined) return [];
  return [
    {
      name: 'redis_rtt_tls_wire_bytes_total',
      help: 'TLS bytes on the wire (records, handshakes, alerts), by side (client, upstream) and direction (up: towards Redis, down: towards the client).',
      type: 'counter',
      samples: [
        { labels: { side: 'client', direction: 'up' }, value: t.wireBytesUp },
        { labels: { side: 'client', direction: 'down' }, value: t.wireBytesDown },
        { labels: { side: 'upstream', direction: 'up' }, value: t.upstreamWireBytesUp },
        { labels: { side: 'upstream', direction: 'down' }, value: t.upstreamWireBytesDown },
      ],
    },
    {
      name: 'redis_rtt_tls_handshakes_total',
      help: 'TLS handshakes, by side and result (failed: the connection closed without completing one).',
      type: 'counter',
      samples: [
        { labels: { side: 'client', result: 'ok' }, value: t.handshakes },
        { labels: { side: 'client', result: 'failed' }, value: t.handshakeFailures },
        { labels: { side: 'upstream', result: 'ok' }, value: t.upstreamHandshakes },
        { labels: { side: 'upstream', result: 'failed' }, value: t.upstreamHandshakeFailures },
      ],
    },
  ];
}
