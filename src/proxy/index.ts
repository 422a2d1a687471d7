import { LinkState } from '../link/link-state.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { ConnectionInfo, StatsSnapshot } from '../stats/types.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import { startControl } from './start-control.js';
import { jitterFloorWarning } from '../link/jitter.js';
import { formatEndpoint, isLoopback, type Endpoint } from './endpoint.js';
import { createRegistry, renderMetrics, emptySnapshot } from './registry-factory.js';
import { ProxyServer } from './server.js';
import { SelfMonitor } from './self-monitor.js';
import { StageRegistry } from './stage-registry.js';
import { sharedScheduler } from '../link/scheduler.js';
import { seededUniform } from '../link/rng.js';
import { ToxicSet } from '../toxics/toxic-set.js';
import { toxicFamily } from '../toxics/metrics.js';
import { measureHop, measureSchedulerLatenessUs } from './hop.js';
import { measureHopThrough } from './self-calibrate.js';
import type { ProxyOptions, RedisRttProxy } from './types.js';
import { normalizeProxyOptions, type NormalizedProxyOptions } from './normalize-options.js';
import { prepareProxyTls, type ProxyTls } from '../tls/setup.js';

export type { ProxyOptions, RedisRttProxy } from './types.js';

export { DEFAULT_HIGH_WATER_BYTES, DEFAULT_CONNECT_TIMEOUT_MS } from './options-schema.js';
export { normalizeProxyOptions, type NormalizedProxyOptions } from './normalize-options.js';
/**
 * Ceiling on auto compensation per direction, above what a quiet machine measures
 * (docs/measurements.md): a larger figure means the machine was busy during the measurement, and
 * taking it all off would make the link faster than configured.
 */
export const MAX_AUTO_COMPENSATION_US = 80;

/**
 * Starts a proxy between clients and Redis. The CLI's `redis-rtt proxy` is this function plus
 * flag parsing; integration tests can use it directly:
 *
 *   const p = await startProxy({ upstream: '127.0.0.1:6380', link: { rttUs: 1200 } });
 *   new Redis(p.port, p.host); ...; p.stats().totals.roundTrips; await p.close();
 */
export async function startProxy(input: ProxyOptions): Promise<RedisRttProxy> {
  const options = normalizeProxyOptions(input);
  const { upstream, listen, highWaterBytes, log } = options;
  const secure = prepareProxyTls(options.upstreamTls, options.listenTls, upstream, log);
  try {
    return await startWith(options, upstream, listen, highWaterBytes, log, secure);
  } catch (err) {
    secure.cleanup();
    throw err;
  }
}

async function startWith(
  options: NormalizedProxyOptions,
  upstream: Endpoint,
  listen: Endpoint,
  highWaterBytes: number,
  log: (line: string) => void,
  secure: ProxyTls,
): Promise<RedisRttProxy> {
  const controlPlan = options.control;
  // The link starts with no delay so auto compensation can measure through it; the requested one
  // (validated already) goes on after the hop measurement.
  const link = new LinkState({}, { seed: options.seed, compensationUs: options.compensationUs });
  let calibrating = options.compensationUs === undefined;
  const registry =
    options.tap === false
      ? undefined
      : createRegistry({
          maxPendingPerConnection: options.maxPendingPerConnection,
          maxPendingTotal: options.maxPendingTotal,
        });
  const lateness = new LatencyHistogram();
  const scheduler = options.scheduler ?? sharedScheduler();
  const monitor = new SelfMonitor(scheduler);
  const toxics = new ToxicSet({ scheduler, uniform: seededUniform(link.seed ^ 0x5bd1e995) });
  for (const t of options.toxics ?? []) toxics.add(t);
  const server = new ProxyServer({
    scheduler,
    upstream,
    listen,
    link,
    registry,
    highWaterBytes,
    handshake: options.handshake,
    connectTimeoutMs: options.connectTimeoutMs,
    onEvent: options.onEvent && ((e) => (calibrating ? undefined : options.onEvent!(e))),
    argSizes: options.argSizes,
    keyHash: options.keyHash,
    log,
    onLateness: (ns, direction) => {
      lateness.record(ns / 1000);
      monitor.onLateness(ns, direction);
    },
    monitor,
    idleTimeoutMs: options.idleTimeoutMs,
    maxConnections: options.maxConnections,
    upstreamTls: secure.upstream,
    listenTls: secure.listen,
  });
  // Names and shapes checked now (a ConfigError before anything listens); the stages go on after
  // the hop measurement, which must see the bare link.
  const dryRun = new StageRegistry(() => []);
  for (const stage of options.stages ?? []) dryRun.addStage(stage);
  await server.listen();
  if (calibrating) {
    link.setCompensation(await autoCompensation(server, upstream, secure, log));
    registry?.reset();
    lateness.reset();
    monitor.reset();
    calibrating = false;
  }
  for (const stage of options.stages ?? []) server.stages.addStage(stage);
  toxics.attach(server.stages);
  try {
    link.update(options.link ?? {});
  } catch (err) {
    await server.close();
    throw err;
  }
  const jitterWarning = jitterFloorWarning(link.settings);
  if (jitterWarning) log(jitterWarning);
  if (listen.kind === 'tcp' && !isLoopback(listen.host)) {
    log(`warning: listening on ${server.address}, reachable from other machines; the proxy has no authentication of its own`);
  }

  const stats = (): StatsSnapshot => {
    const s = registry ? registry.snapshot(link.settings) : emptySnapshot(link.settings);
    if (!registry) s.connections = { active: server.connectionCount, total: s.connections.total };
    s.self = monitor.report();
    if (secure.listen || secure.upstream) s.tls = server.tlsCounters();
    const counts = toxics.counts();
    if (counts.length > 0) s.toxics = counts;
    return s;
  };
  const setLink = (update: LinkUpdate & { preset?: string }): LinkSettings => {
    const next = link.update(update);
    options.onLinkChange?.(next);
    return next;
  };
  const connections = (): ConnectionInfo[] => {
    // The local port of each upstream socket: what Redis's CLIENT LIST shows as the client's addr.
    const local = new Map(server.connections().map((c) => [c.id, c.upstream.localPort]));
    return (registry?.connectionsInfo() ?? []).map((c) => (local.get(c.id) === undefined ? c : { ...c, upstreamLocalPort: local.get(c.id) }));
  };
  const resetStats = (): void => {
    registry?.reset();
    lateness.reset();
    monitor.reset();
  };

  let control;
  try {
    control = await startControl(
      controlPlan,
      { stats, setLink, reset: resetStats, connections, metrics: () => renderMetrics(stats(), [toxicFamily(toxics.counts())]), toxics },
      log,
    );
  } catch (err) {
    await server.close();
    throw err;
  }

  let closing: Promise<void> | undefined;
  return {
    address: server.address,
    host: server.host,
    port: server.port,
    controlAddress: control?.address,
    tlsCaFile: secure.generatedCaFile,
    tlsStats: () => server.tlsCounters(),
    get compensationUs() {
      return link.compensationUs;
    },
    setCompensation: (c) => link.setCompensation(c),
    deliveryLatenessUs: () => lateness.summary(),
    link: () => link.settings,
    setLink,
    stats,
    resetStats,
    connections,
    addToxic: (t) => toxics.add(t),
    updateToxic: (name, change) => toxics.update(name, change),
    removeToxic: (name) => toxics.remove(name),
    toxics: () => toxics.list(),
    addStage: (stage, index) => server.stages.addStage(stage, index),
    removeStage: (name) => server.stages.removeStage(name),
    listStages: () => server.stages.listStages(),
    close: () => (closing ??= Promise.all([server.close(), control?.close()]).then(() => secure.cleanup())),
  };
}

/**
 * What to take off each one-way delay: half the extra PING round trip the proxy adds with no delay
 * (measured through its own listener against the real upstream), plus the scheduler's lateness.
 * Falls back to a loopback estimate when the upstream cannot be reached at start, and to nothing
 * when something answers there that is not Redis (then there was no hop to measure).
 * The measuring connections are closed here, before anyone else knows the address, so the caller's
 * counter reset leaves none of them in /stats.
 */
async function autoCompensation(
  server: ProxyServer,
  upstream: Endpoint,
  secure: ProxyTls,
  log: (line: string) => void,
): Promise<{ up: number; down: number }> {
  const self: Endpoint =
    server.port !== undefined ? { kind: 'tcp', host: server.host ?? '127.0.0.1', port: server.port } : { kind: 'unix', path: server.address };
  // Our own listener's certificate may be generated or for another name: this probe trusts it.
  const hop = await measureHopThrough(self, upstream, { self: secure.listen && { rejectUnauthorized: false }, upstream: secure.upstream });
  let perDirectionUs: number;
  if (hop && 'notRedis' in hop) {
    log(`warning: upstream ${formatEndpoint(upstream)} did not answer PING like Redis (${hop.notRedis}); no compensation`);
    perDirectionUs = 0;
  } else if (hop) {
    perDirectionUs = Math.max(0, (hop.proxyUs - hop.directUs) / 2) + (await measureSchedulerLatenessUs(50));
  } else {
    perDirectionUs = (await measureHop()).perDirectionUs;
  }
  // The measuring connection through our own listener: a client that closed may still be waiting on
  // an upstream that never closes its side (a silent listener), so end it here rather than wait.
  for (const c of server.connections()) c.destroy();
  for (let i = 0; i < 40 && server.connectionCount > 0; i++) await new Promise((r) => setTimeout(r, 5));
  let us = Math.round(perDirectionUs);
  if (us > MAX_AUTO_COMPENSATION_US) {
    log(`hop measured at ${us} us per direction (a busy machine?); compensating ${MAX_AUTO_COMPENSATION_US} us only`);
    us = MAX_AUTO_COMPENSATION_US;
  }
  return { up: us, down: us };
}
