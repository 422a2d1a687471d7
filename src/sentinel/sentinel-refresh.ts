import type tls from 'node:tls';
import type { UpstreamAuth } from '../cluster/discover.js';
import { PeriodicRefresh } from '../cluster/periodic-refresh.js';
import type { RealAddress } from '../cluster/types.js';
import type { CertificateWarnings } from './certificate-warnings.js';
import type { FailoversSeen } from './failovers-seen.js';
import { readSentinel, type SentinelReading } from './discover.js';
import type { PrimaryAnswers } from './primary-answers.js';
import type { SentinelTopology } from './sentinel-topology.js';

export interface SentinelRefreshOptions {
  /** The --sentinel addresses, asked first and in order, even once no sentinel lists them. */
  given: readonly RealAddress[];
  master: string;
  topology: SentinelTopology;
  answers: PrimaryAnswers;
  /** Told the primary each reading names. */
  failovers: FailoversSeen;
  auth: UpstreamAuth;
  /** TLS options per host (--upstream-tls); undefined without TLS. */
  tls: ((host: string) => tls.ConnectionOptions) | undefined;
  periodMs: number;
  /** With --upstream-tls: certificates that do not verify, said once (undefined without TLS). */
  certificates?: CertificateWarnings;
  log(line: string): void;
}

/**
 * Asks every known sentinel about the master every `periodMs` (and when asked): each answer goes to
 * the disagreement check, and the first sentinel in order that answers speaks for roles and for
 * the nodes and sentinels to open. One read at a time: a refresh asked for while one runs joins it.
 */
export class SentinelRefresh extends PeriodicRefresh {
  constructor(private readonly o: SentinelRefreshOptions) {
    super(o.periodMs, 'sentinel', o.log);
  }

  /** What each sentinel of `order` (default: every known one) says (an Error for one that did not answer), the given ones first, in order. */
  async readAll(order: readonly RealAddress[] = this.known()): Promise<{ sentinel: RealAddress; reading: SentinelReading | Error }[]> {
    const tlsFor = this.o.tls;
    return Promise.all(
      order.map(async (sentinel) => ({
        sentinel,
        reading: await readSentinel(sentinel, this.o.master, { ...this.o.auth, tls: tlsFor?.(sentinel.host), timeoutMs: 1000 }).catch((err: unknown) =>
          err instanceof Error ? err : new Error(String(err)),
        ),
      })),
    );
  }

  private known(): RealAddress[] {
    const learnt = this.o.topology.sentinelAddresses();
    return [...this.o.given, ...learnt.filter((k) => !this.o.given.some((g) => g.host === k.host && g.port === k.port))];
  }

  protected async read(): Promise<void> {
    const all = await this.readAll();
    for (const { sentinel, reading } of all) this.o.certificates?.sentinelRead(sentinel, reading);
    this.o.answers.recordReading(all.map(({ sentinel, reading }) => ({ sentinel, primary: reading instanceof Error ? undefined : reading.primary })));
    const first = all.map((x) => x.reading).find((r): r is SentinelReading => !(r instanceof Error) && r.primary !== undefined);
    if (!first) throw new Error(`no sentinel answered for ${this.o.master}`);
    this.o.failovers.read(first.primary);
    await this.o.topology.apply(first);
    // Not waited for: a node slow to shake hands must not hold the reading up.
    void this.o.certificates?.checkNodes(first).catch((err: unknown) => this.o.log(`certificate check failed: ${String(err)}`));
  }
}
