import type tls from 'node:tls';
import { certificateError } from '../cluster/cluster-tls.js';
import { nodeKey } from '../cluster/topology.js';
import type { RealAddress } from '../cluster/types.js';
import { formatEndpoint } from '../endpoint.js';
import type { ProxyOptions } from '../proxy/types.js';
import type { SentinelReading } from './discover.js';
import { nodeCertificate, type DataRole } from './primary-certificate.js';

/**
 * With --upstream-tls, a certificate that does not verify on a node or sentinel the proxy meets
 * after start (a sentinel another one names, a replica added or first listed later): the start
 * checks only the ones it is given. Without this, each client of that listener was closed with a
 * `conn N` line of its own, and a learned sentinel's once-a-second reading failed with no word at
 * all. Said once per node and reason, naming the flag to fix, as the start's errors do; again
 * only when the reason changes, or after the node verified.
 */
export class CertificateWarnings {
  /** The reason last said, by node. */
  private readonly said = new Map<string, string>();
  /** Data nodes whose handshake verified or failed on the certificate: one handshake each is enough. */
  private readonly checked = new Set<string>();

  constructor(
    private readonly base: ProxyOptions,
    private readonly tlsFor: (host: string) => tls.ConnectionOptions,
    private readonly log: (line: string) => void,
  ) {}

  /** Data nodes the start's check verified. */
  verified(nodes: readonly RealAddress[]): void {
    for (const a of nodes) this.checked.add(nodeKey(a.host, a.port));
  }

  /** A sentinel's reading (the refresh makes one a second): a certificate failure is said once. */
  sentinelRead(at: RealAddress, reading: SentinelReading | Error): void {
    const key = nodeKey(at.host, at.port);
    const bad = reading instanceof Error ? certificateError(this.base, reading) : undefined;
    if (bad === undefined) {
      if (!(reading instanceof Error)) this.said.delete(key);
      return;
    }
    this.say(key, `sentinel ${formatEndpoint({ kind: 'tcp', ...at })}`, bad.message);
  }

  /** The data nodes of a reading: one handshake with each not checked yet. */
  async checkNodes(r: SentinelReading): Promise<void> {
    const primaryKey = r.primary ? nodeKey(r.primary.host, r.primary.port) : undefined;
    const nodes: { role: DataRole; at: RealAddress }[] = [
      ...(r.primary ? [{ role: 'primary' as const, at: r.primary }] : []),
      ...r.replicas.filter((a) => nodeKey(a.host, a.port) !== primaryKey).map((at) => ({ role: 'replica' as const, at })),
    ];
    const fresh = nodes.filter((n) => !this.checked.has(nodeKey(n.at.host, n.at.port)));
    // Marked before the handshake: the next reading, a second later, must not start another.
    for (const n of fresh) this.checked.add(nodeKey(n.at.host, n.at.port));
    await Promise.all(
      fresh.map(async (n) => {
        const key = nodeKey(n.at.host, n.at.port);
        const outcome = await nodeCertificate(n.role, n.at, this.tlsFor, this.base);
        // A node down is no certificate problem: asked again with a later reading.
        if (outcome === 'unanswered') this.checked.delete(key);
        else if (outcome !== 'verified') this.say(key, `${n.role} ${formatEndpoint({ kind: 'tcp', ...n.at })}`, outcome.message);
      }),
    );
  }

  private say(key: string, who: string, why: string): void {
    if (this.said.get(key) === why) return;
    this.said.set(key, why);
    this.log(`warning: ${who}: its certificate does not verify, so its listener closes every client: ${why}`);
  }
}
