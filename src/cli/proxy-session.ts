import { writeFile } from 'node:fs/promises';
import type { ClusterStats, RedisRttClusterProxy } from '../cluster/cluster-view.js';
import type { RedisRttProxy } from '../proxy/types.js';
import { linkText, renderSummaryTable } from '../stats/summary-table.js';
import type { StatsSnapshot } from '../stats/types.js';
import type { RecordHooks } from '../record/cli-options.js';
import { checkOutputs } from './json-out.js';

/**
 * What `redis-rtt proxy` says around its run, one job apart from the start-up's options: the
 * `listening` line on stdout once it listens, and once it is stopped the summary, the trace's
 * footer and --stats-json.
 */

/** Where the line says the proxy forwards to (upstream or sentinels), as the flags gave it, resolved. */
export interface ListeningUpstream {
  upstream: string | null;
  sentinel?: { sentinels: readonly string[]; sentinelMaster: string };
}

/** The one JSON line a script reads to find the proxy's addresses (docs/cli.md). */
export function listeningLine(proxy: RedisRttProxy, to: ListeningUpstream): string {
  const nodes = 'cluster' in proxy ? (proxy as RedisRttClusterProxy).nodes() : undefined;
  const clientZones = 'cluster' in proxy ? (proxy as RedisRttClusterProxy).clientZones() : undefined;
  return (
    JSON.stringify({
      event: 'listening',
      listen: proxy.address,
      control: proxy.controlAddress ?? null,
      upstream: to.upstream,
      ...(to.sentinel ? { sentinels: to.sentinel.sentinels, sentinelMaster: to.sentinel.sentinelMaster } : {}),
      link: proxy.link(),
      compensationUs: proxy.compensationUs,
      ...(proxy.tlsCaFile !== undefined ? { tlsCa: proxy.tlsCaFile } : {}),
      ...(nodes ? { nodes } : {}),
      ...(clientZones ? { clientZones } : {}),
    }) + '\n'
  );
}

/**
 * After the stop: the close first, which delivers what the connections hold (up to its limit) and
 * takes what it dropped out of the counts, then the snapshot, the summary, the trace's footer and
 * --stats-json (its path checked again: it was checked at start, and the session may have been long).
 */
export async function endSession(proxy: RedisRttProxy, record: RecordHooks | undefined, statsJson: string | undefined): Promise<void> {
  await proxy.close();
  const snapshot = proxy.stats();
  process.stderr.write(renderSummaryTable(snapshot, { links: nodeLinks(snapshot) }));
  if (record) {
    const r = await record.close();
    process.stderr.write(`redis-rtt: trace ${record.path}: ${JSON.stringify(r)}\n`);
  }
  if (statsJson) {
    checkOutputs({ '--stats-json': statsJson });
    await writeFile(statsJson, JSON.stringify(snapshot, null, 2) + '\n');
  }
}

/**
 * Cluster mode: the snapshot's `link` is the seed's, while nodes in other zones (--zones, --links)
 * run other links; each link once, with how many nodes run it. Undefined with one link for all.
 */
function nodeLinks(snapshot: StatsSnapshot): string | undefined {
  const nodes = 'cluster' in snapshot ? (snapshot as ClusterStats).cluster.nodes : [];
  const count = new Map<string, number>();
  for (const n of nodes) {
    const text = `${n.link ? `${n.link} ` : ''}${linkText(n.linkSettings)}`;
    count.set(text, (count.get(text) ?? 0) + 1);
  }
  if (count.size < 2) return undefined;
  return `links ${[...count].map(([text, n]) => `${text} (${n} node${n === 1 ? '' : 's'})`).join(', ')}`;
}
