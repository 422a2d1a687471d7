import { renderFamilies, snapshotFamilies, type MetricFamily } from '../stats/prometheus.js';
import { toxicFamily } from '../toxics/metrics.js';
import type { ManagedProxy } from './managed-proxy.js';

/**
 * GET /metrics of `redis-rtt server`: each proxy's redis-rtt families with a `proxy` label, each
 * toxic's applications, and toxiproxy's received-bytes counter under its own name and labels so an
 * existing dashboard keeps a series. Pure: proxies in, text out.
 */
export function renderServerMetrics(proxies: readonly ManagedProxy[]): string {
  const families = new Map<string, MetricFamily>();
  const add = (f: MetricFamily, labels: Record<string, string>): void => {
    let into = families.get(f.name);
    if (!into) families.set(f.name, (into = { ...f, samples: [] }));
    for (const s of f.samples) into.samples.push({ ...s, labels: { ...labels, ...s.labels } });
  };
  for (const p of proxies) {
    const stats = p.stats();
    if (stats.totals.bytesUp !== undefined) for (const f of snapshotFamilies(stats)) add(f, { proxy: p.name });
    add(toxicFamily(stats.toxics), { proxy: p.name });
    add(
      {
        name: 'toxiproxy_proxy_received_bytes_total',
        help: 'Bytes received by the proxy, by direction (toxiproxy\'s name and labels).',
        type: 'counter',
        samples: [
          { labels: { direction: 'upstream' }, value: stats.totals.bytesUp ?? 0 },
          { labels: { direction: 'downstream' }, value: stats.totals.bytesDown ?? 0 },
        ],
      },
      { listener: p.listen, proxy: p.name, upstream: p.upstream },
    );
  }
  return renderFamilies([...families.values()]);
}
