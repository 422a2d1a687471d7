import { formatEndpoint } from '../endpoint.js';
import type { Compensation } from '../link/compensation.js';
import type { LinkSettings } from '../link/types.js';
import { checkStagesOption } from '../proxy/proxy-stages.js';
import { SelfMonitor } from '../proxy/self-monitor.js';
import type { NodeStart, ProxyOptions, RedisRttProxy } from '../proxy/types.js';
import { sharedScheduler } from '../link/shared-scheduler.js';
import type { StageFactory } from '../stage/types.js';
import type { ListenTlsOptions } from '../tls/options.js';
import { listenerName } from './cluster-node.js';
import { ClusterEventIds } from './event-ids.js';
import { OpenFailures } from './open-failures.js';
import type { RealAddress } from './types.js';

/** startProxy for one node; given by the caller so this folder does not import the proxy's entry. */
export type StartNodeProxy = (options: ProxyOptions & { stages?: StageFactory[] }, node: NodeStart) => Promise<RedisRttProxy>;

export interface NodeStarterOptions {
  /** The cluster proxy's options: each node proxy starts from them. */
  options: ProxyOptions;
  startNodeProxy: StartNodeProxy;
  /** The host every node's listener binds (--listen's). */
  listenHost: string;
  announceHost: string;
  /** One pair for every node's listener (cluster-tls.ts). */
  listenTls: ListenTlsOptions | undefined;
  log(line: string): void;
}

/**
 * Starts the proxy of each node, first the seed, then every node a topology reply names. What the
 * nodes share lives here: the seed's measured compensation (the others take it instead of
 * measuring again), one event stream, the stages added on the handle, and warnings said once.
 */
export class NodeStarter {
  private readonly eventIds = new ClusterEventIds();
  /** Stages added on the handle: a node opened later starts with them too. */
  private userStages: StageFactory[];
  private compensationUs: Compensation | undefined;
  /** The toxics every node has now (--toxic, then the handle's changes): a node opened later starts with them. */
  private toxics: readonly unknown[];
  private startedOne = false;
  private warmedUp = false;
  /** One for all the nodes (NodeStart.monitor). */
  private readonly monitor: SelfMonitor;
  /** Nodes that could not get a listener, said once each until one starts (a rewrite stage's onOpenFailed). */
  readonly openFailures: OpenFailures;

  constructor(private readonly o: NodeStarterOptions) {
    // Checked as the caller wrote them: each node's start sees them behind its rewrite stage.
    checkStagesOption(o.options.stages);
    this.userStages = [...(o.options.stages ?? [])];
    this.compensationUs = o.options.compensationUs;
    this.toxics = o.options.toxics ?? [];
    this.monitor = new SelfMonitor(o.options.scheduler ?? sharedScheduler());
    this.openFailures = new OpenFailures(o.log);
  }

  /** `clientZone`: the listener's client zone, named in its log lines (listenerName), with --client-zones. */
  async start(a: RealAddress, listenPort: number, link: LinkSettings, rewrite: StageFactory | undefined, clientZone?: number): Promise<RedisRttProxy> {
    const name = listenerName(a, clientZone);
    const options = this.o.options;
    // Known once bound (port 0 = any): the events and link changes that name it come after.
    const at = { upstream: `${a.host}:${a.port}`, listen: '' };
    const onNodeLink = options.onNodeLinkChange;
    const warnedBefore = this.startedOne;
    this.startedOne = true;
    // The nodes' proxies share one process and its compiled code: the first one's warm-up is enough.
    const warmUpConnections = this.warmedUp ? 0 : options.warmUpConnections;
    this.warmedUp = true;
    const p = await this.o.startNodeProxy(
      {
        ...options,
        upstream: at.upstream,
        listen: formatEndpoint({ kind: 'tcp', host: this.o.listenHost, port: listenPort }),
        control: undefined,
        listenTls: this.o.listenTls,
        link,
        compensationUs: this.compensationUs,
        warmUpConnections,
        // One stream for all nodes: connection ids unique across them, open events naming the node.
        onEvent: options.onEvent && this.eventIds.forNode({ node: at.upstream, listen: () => at.listen }, options.onEvent),
        onLinkChange: onNodeLink ? (l) => onNodeLink(at, l) : options.onLinkChange,
        log: (line) => this.o.log(`${name}: ${line}`),
        stages: rewrite ? [rewrite, ...this.userStages] : this.userStages,
        toxics: this.toxics,
      },
      { warnedBefore, monitor: this.monitor },
    );
    at.listen = formatEndpoint({ kind: 'tcp', host: this.o.announceHost, port: p.port! });
    onNodeLink?.(at, p.link());
    this.compensationUs ??= p.compensationUs;
    this.openFailures.opened(a, clientZone);
    return p;
  }

  addStage(stage: StageFactory): void {
    this.userStages.push(stage);
  }

  /** The toxics after a change on the handle (every node's are the same). */
  setToxics(toxics: readonly unknown[]): void {
    this.toxics = toxics;
  }

  removeStage(name: string): void {
    this.userStages = this.userStages.filter((s) => s.name !== name);
  }
}
