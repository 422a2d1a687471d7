import type { ClientZones } from '../cluster/client-zones.js';
import { ClusterProxy } from '../cluster/cluster-proxy.js';
import type { ClusterStats, RedisRttClusterProxy } from '../cluster/cluster-view.js';
import type { NodeStarter } from '../cluster/node-starter.js';
import { RewriteCounts } from '../cluster/rewrite-counts.js';
import type { TopologySource } from '../cluster/topology-refresh.js';
import type { SentinelBlock } from '../stats/types.js';
import type { FailoversSeen } from './failovers-seen.js';
import type { PrimaryAnswers } from './primary-answers.js';
import type { SentinelCounts } from './sentinel-counts.js';
import type { SentinelRewriteKind } from './types.js';

/** /stats in sentinel mode: cluster mode's (every listener in `cluster.nodes`, sentinels included) and a `sentinel` block. */
export interface SentinelStats extends ClusterStats {
  sentinel: SentinelBlock & { rewrites: Record<SentinelRewriteKind, number> };
}

export interface RedisRttSentinelProxy extends RedisRttClusterProxy {
  readonly sentinel: true;
  stats(): SentinelStats;
}

/**
 * Sentinel mode: cluster mode's per-node machinery (one listener, link and tap per sentinel and per
 * data node, node links, zones, the control endpoint) with SENTINEL readings for a topology and the
 * rewrite stage on the sentinels' connections only. startSentinelProxy builds it.
 */
export class SentinelProxy extends ClusterProxy implements RedisRttSentinelProxy {
  readonly sentinel = true;

  constructor(
    zones: ClientZones,
    starter: NodeStarter,
    refresh: TopologySource,
    private readonly master: string,
    private readonly answers: PrimaryAnswers,
    private readonly sentinelCounts: SentinelCounts,
    private readonly failovers: FailoversSeen,
    listenTls: { caFile?: string; cleanup(): void },
    log: (line: string) => void,
  ) {
    // Cluster mode's rewrite counts stay at 0 here: sentinel mode's are in the sentinel block.
    super(zones, starter, refresh, new RewriteCounts(log), listenTls);
  }

  override stats(): SentinelStats {
    const s = super.stats();
    const primary = s.cluster.nodes.find((n) => n.role === 'master')?.upstream ?? null;
    const sentinel = { master: this.master, primary, ...this.answers.snapshot(), failovers: this.failovers.count, ...this.sentinelCounts.snapshot() };
    return { ...s, sentinel };
  }

  override resetStats(): void {
    super.resetStats();
    this.answers.reset();
    this.sentinelCounts.reset();
    this.failovers.reset();
  }
}
