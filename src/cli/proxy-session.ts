import { writeFile } from 'node:fs/promises';
import type { RedisRttClusterProxy } from '../cluster/cluster-view.js';
import type { RedisRttProxy } from '../proxy/types.js';
import type { RecordHooks } from '../record/cli-options.js';
import { checkOutputs } from './json-out.js';
import { renderSummary } from './proxy-summary.js';

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
 * After the stop: the snapshot is taken before the close (which drops the connections it counts),
 * then the summary, the trace's footer and --stats-json (its path checked again: it was checked at
 * start, and the session may have been long).
 */
export async function endSession(proxy: RedisRttProxy, record: RecordHooks | undefined, statsJson: string | undefined): Promise<void> {
  const snapshot = proxy.stats();
  await proxy.close();
  process.stderr.write(renderSummary(snapshot));
  if (record) {
    const r = await record.close();
    process.stderr.write(`redis-rtt: trace ${record.path}: ${JSON.stringify(r)}\n`);
  }
  if (statsJson) {
    checkOutputs({ '--stats-json': statsJson });
    await writeFile(statsJson, JSON.stringify(snapshot, null, 2) + '\n');
  }
}
