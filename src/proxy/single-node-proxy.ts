import type { Compensation } from '../link/compensation.js';
import { jitterFloorWarning } from '../link/jitter.js';
import { LinkState } from '../link/link-state.js';
import { seededUniform } from '../link/rng.js';
import { sharedScheduler } from '../link/shared-scheduler.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import type { StageFactory } from '../stage/types.js';
import { emptySnapshot } from '../stats/stats-collector.js';
import type { ConnectionInfo, LatencySummary, StatsSnapshot } from '../stats/types.js';
import type { TlsCounters } from '../tls/counters.js';
import type { ProxyTls } from '../tls/setup.js';
import { ToxicSet } from '../toxics/toxic-set.js';
import type { ToxicSpec } from '../toxics/types.js';
import { autoCompensation } from './auto-compensation.js';
import type { ControlServer } from './control.js';
import { isLoopback, type Endpoint } from '../endpoint.js';
import { SelfMonitor } from './self-monitor.js';
import type { TapSource } from './listener-options.js';
import { ProxyListener } from './listener.js';
import { upstreamRefuses } from './refusal-watch.js';
import { singleNodeHandlers, startControl } from './start-control.js';
import type { CloseOptions, NodeStart, RedisRttProxy } from './types.js';
import type { NormalizedProxyOptions } from './normalize-options.js';
import { checkStagesOption } from './proxy-stages.js';
import { StatsCollector } from '../stats/stats-collector.js';
import { partitionRequestOf, type PartitionRequest } from '../link/partition.js';
import { LinkTimeline } from './link-timeline.js';
import { Partitions } from './partitions.js';
import { warmUp } from './warm-up.js';

/**
 * One listener in front of one Redis: the proxy `startProxy` returns without cluster mode, and
 * each node of a cluster proxy. The constructor builds; start() runs the start-up steps in order.
 */
export class SingleNodeProxy implements RedisRttProxy {
  private readonly linkState: LinkState;
  private readonly taps: TapSource | undefined;
  private readonly lateness = new LatencyHistogram();
  private readonly monitor: SelfMonitor;
  private readonly toxicSet: ToxicSet;
  private readonly server: ProxyListener;
  private readonly partitions: Partitions;
  private readonly timeline: LinkTimeline;
  private control: ControlServer | undefined;
  /** While the start-up hop measurement runs, its connections raise no events for the caller. */
  private calibrating: boolean;
  /** While the start-up's own warm-up connections run: their events go nowhere. */
  private warming = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly o: NormalizedProxyOptions,
    private readonly secure: ProxyTls,
    /** A cluster's or Sentinel set-up's node: what the first said, the monitor the nodes share. */
    private readonly node: NodeStart = {},
  ) {
    // The link starts with no delay so auto compensation can measure through it; the requested one
    // (validated already) goes on after the hop measurement.
    const scheduler = o.scheduler ?? sharedScheduler();
    this.linkState = new LinkState({}, { seed: o.seed, compensationUs: o.compensationUs, clock: scheduler.clock });
    this.taps =
      o.tap === false ? undefined : new StatsCollector({ maxPendingPerConnection: o.maxPendingPerConnection, maxPendingTotal: o.maxPendingTotal });
    this.calibrating = o.compensationUs === undefined;
    this.monitor = node.monitor ?? new SelfMonitor(scheduler);
    // 'refuse': a misspelled key in addToxic(), updateToxic() or the control endpoint's /toxics is an
    // error, as in startProxy({ toxics }); toxiproxy's own API (redis-rtt server) ignores it.
    this.toxicSet = new ToxicSet({ scheduler, uniform: seededUniform(this.linkState.seed ^ 0x5bd1e995) }, 'refuse');
    for (const t of o.toxics ?? []) this.toxicSet.add(t);
    const onEvent = o.onEvent;
    this.server = new ProxyListener({
      scheduler,
      upstream: o.upstream,
      listen: o.listen,
      link: this.linkState,
      taps: this.taps,
      highWaterBytes: o.highWaterBytes,
      handshake: o.handshake,
      connectTimeoutMs: o.connectTimeoutMs,
      onEvent: onEvent && ((e) => (this.calibrating || this.warming ? undefined : onEvent(e))),
      argSizes: o.argSizes,
      keyHash: o.keyHash,
      log: o.log,
      onLateness: (ns, direction) => {
        this.lateness.record(ns / 1000);
        this.monitor.onLateness(ns, direction);
      },
      monitor: this.monitor,
      idleTimeoutMs: o.idleTimeoutMs,
      maxConnections: o.maxConnections,
      upstreamTls: secure.upstream,
      listenTls: secure.listen,
    });
    this.partitions = new Partitions(scheduler, this.linkState, () => this.server.connections(), o.log);
    // A step whose partition cannot start is skipped whole (link-timeline.ts), as PUT /link refuses it.
    const scheduledPartition = {
      check: (r: PartitionRequest): void => this.partitions.check(r, this.closing !== undefined),
      start: (r: PartitionRequest): void => void this.partitions.start(r),
    };
    this.timeline = new LinkTimeline(o.timeline, scheduler, this.linkState, (u) => this.setLink(u), scheduledPartition, o.log);
    // Stage names and shapes checked now (a ConfigError before anything listens); the stages go on
    // after the hop measurement, which must see the bare link.
    checkStagesOption(o.stages);
  }

  /** The start-up steps, in order. One that fails closes what the ones before it opened. */
  async start(): Promise<this> {
    // Alongside the start-up's own connections: a Redis that is down now is refused from the first
    // client on, not learnt from that client's reset (docs/redis-down.md).
    const refusedAtStart = upstreamRefuses(this.o.upstream, this.secure.upstream);
    try {
      await this.ownConnections();
      this.addStartStages();
      const { partition, then, ...link } = this.o.link ?? {};
      this.linkState.update(link);
      if (partition !== undefined) this.partitions.start({ durationUs: partition, then: then ?? 'heal' });
      // The clock of a moving link starts here, once the hop measurement is behind it.
      this.timeline.start();
      // Clients only now: before this, --listen refuses them (start-up-listener.ts).
      const refused = await refusedAtStart;
      await this.server.listen();
      this.server.watchRefusals = true;
      if (refused) this.server.refusedAtStart();
      this.warnAtStart();
      this.control = await startControl(this.o.control, singleNodeHandlers(this, this.toxicSet), this.o.log);
      return this;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** The hop measurement and the warm-up, through a listener of their own. */
  private async ownConnections(): Promise<void> {
    if (!this.calibrating && this.o.warmUpConnections === 0) return;
    const at = await this.server.openStartUp();
    try {
      await this.calibrate(at);
      await this.warmUp(at);
    } finally {
      await this.server.closeStartUp();
    }
  }

  /** Auto compensation: measured through the bare link (no delay, no stages), then counters zeroed. */
  private async calibrate(at: Endpoint): Promise<void> {
    if (!this.calibrating) return;
    this.linkState.setCompensation(await autoCompensation(this.server, at, this.o.upstream, this.secure, this.o.log));
    this.resetStats();
    this.calibrating = false;
  }

  /**
   * --warm-up: connections through the bare link (no delay, no stages yet), then counters zeroed
   * once the proxy has closed them all, so the first client finds the set-up path compiled.
   */
  private async warmUp(at: Endpoint): Promise<void> {
    const count = this.o.warmUpConnections;
    if (count === 0) return;
    this.warming = true;
    try {
      // Our own listener's certificate may be generated or for another name: the warm-up trusts it.
      const tls = this.secure.listen && { rejectUnauthorized: false };
      await warmUp({ at, tls, count, log: this.o.log });
      if (!(await this.server.drained(5000))) this.o.log('warm-up: some of its connections were still open after 5 s');
    } finally {
      this.warming = false;
    }
    this.resetStats();
  }

  private addStartStages(): void {
    for (const stage of this.o.stages ?? []) this.server.stages.addStage(stage);
    this.toxicSet.attach(this.server.stages);
  }

  private warnAtStart(): void {
    const jitterWarning = jitterFloorWarning(this.linkState.settings);
    if (jitterWarning) this.o.log(jitterWarning);
    const l = this.o.listen;
    if (l.kind === 'tcp' && !isLoopback(l.host) && this.node.warnedBefore !== true) {
      this.o.log(`warning: listening on ${this.server.address}, reachable from other machines; the proxy has no authentication of its own`);
    }
  }

  get address(): string {
    return this.server.address;
  }
  get host(): string | undefined {
    return this.server.host;
  }
  get port(): number | undefined {
    return this.server.port;
  }
  get controlAddress(): string | undefined {
    return this.control?.address;
  }
  get tlsCaFile(): string | undefined {
    return this.secure.generatedCaFile;
  }
  get compensationUs(): { up: number; down: number } {
    return this.linkState.compensationUs;
  }

  tlsStats(): TlsCounters {
    return this.server.tlsCounters();
  }
  setCompensation(c: Compensation): void {
    this.linkState.setCompensation(c);
  }
  deliveryLatenessUs(): LatencySummary {
    return this.lateness.summary();
  }
  link(): LinkSettings {
    return this.linkState.settings;
  }

  /** A link change, and a partition when it asks for one: refused whole (nothing changed) when either is bad. */
  setLink(update: LinkUpdate & { preset?: string }): LinkSettings {
    const partition = partitionRequestOf(update);
    if (partition) this.partitions.check(partition, this.closing !== undefined);
    const next = this.linkState.update(update);
    // New delays hold at once, not at the end of a schedule's ramp toward the old target.
    if (['rttUs', 'upUs', 'downUs', 'preset'].some((k) => k in update)) this.timeline.endRamp();
    if (partition) this.partitions.start(partition);
    this.o.onLinkChange?.(next);
    return next;
  }

  stats(): StatsSnapshot {
    const s = this.taps ? this.taps.snapshot(this.linkState.settings) : emptySnapshot(this.linkState.settings);
    if (!this.taps) {
      s.connections = { active: this.server.connectionCount, total: this.server.accepted };
      s.countsOff = true;
    }
    const refused = this.server.refused;
    if (refused !== undefined) s.connections.refused = refused;
    s.self = this.monitor.report();
    if (this.secure.listen || this.secure.upstream) s.tls = this.server.tlsCounters();
    const counts = this.toxicSet.counts();
    if (counts.length > 0) s.toxics = counts;
    const timeline = this.timeline.report();
    if (timeline) s.timeline = timeline;
    const partition = this.partitions.report();
    if (partition) s.partition = partition;
    // Kept once the link has had loss, zeroed by a reset: it went with a reset on a link whose loss was off.
    if (this.linkState.hadLoss) s.loss = this.linkState.lossCounters;
    return s;
  }

  commandLatencyUs(): Iterable<readonly [string, LatencyHistogram]> {
    return this.taps?.commands.clientLatency() ?? [];
  }

  resetStats(): void {
    this.taps?.reset();
    this.server.resetAccepted();
    this.server.resetTlsCounters();
    this.lateness.reset();
    this.monitor.reset();
    this.linkState.resetLossCounters();
    this.toxicSet.resetCounts();
  }

  connections(): ConnectionInfo[] {
    // The local port of each upstream socket: what Redis's CLIENT LIST shows as the client's addr.
    const local = new Map(this.server.connections().map((c) => [c.id, c.upstream.localPort]));
    return (this.taps?.connectionsInfo() ?? []).map((c) => (local.get(c.id) === undefined ? c : { ...c, upstreamLocalPort: local.get(c.id) }));
  }

  addToxic(t: unknown): ToxicSpec {
    return this.toxicSet.add(t);
  }
  updateToxic(name: string, change: { attributes?: unknown; toxicity?: unknown }): ToxicSpec | undefined {
    return this.toxicSet.update(name, change);
  }
  removeToxic(name: string): boolean {
    return this.toxicSet.remove(name);
  }
  toxics(): ToxicSpec[] {
    return this.toxicSet.list();
  }
  addStage(stage: StageFactory, index?: number): void {
    this.server.stages.addStage(stage, index);
  }
  removeStage(name: string): boolean {
    return this.server.stages.removeStage(name);
  }
  listStages(): readonly StageFactory[] {
    return this.server.stages.listStages();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  close(options: CloseOptions = {}): Promise<void> {
    this.timeline.stop();
    this.partitions.close();
    return (this.closing ??= Promise.all([this.server.close(options.drain !== false), this.control?.close()]).then(() => this.secure.cleanup()));
  }
}

