/**
 * redis-rtt's public API. The CLI is built only on what is exported here.
 *
 *   import { startPrivateRedis, startProxy } from 'redis-rtt';
 *   const redis = await startPrivateRedis();
 *   const proxy = await startProxy({ upstream: redis.address, link: { preset: 'cross-az' } });
 *   // point your client at proxy.host:proxy.port, run your code, then:
 *   proxy.stats().totals.roundTrips;
 *   await proxy.close(); await redis.stop();
 */
export { DEFAULT_HIGH_WATER_BYTES } from './proxy/index.js';
export { startProxy } from './cluster/start-proxy.js';
export type { ProxyOptions, RedisRttProxy } from './proxy/types.js';
export type {
  ByteSink,
  ByteStage,
  ByteStageFactory,
  ConnectionContext,
  FrameStage,
  FrameStageFactory,
  ReplyAction,
  ReplyInfo,
  RequestAction,
  RequestInfo,
  StageFactory,
  StageHost,
  Scheduler,
  Direction,
} from './stage/types.js';
export { measureHop, type HopEstimate } from './proxy/hop.js';
export type { RedisRttClusterProxy, ClusterNodeView, ClusterStats } from './cluster/cluster-view.js';
export type { ClusterProxyOptions } from './cluster/options.js';
export { startSentinelProxy } from './sentinel/start-sentinel.js';
export type { SentinelProxyOptions } from './sentinel/options.js';
export type { RedisRttSentinelProxy, SentinelStats } from './sentinel/sentinel-proxy.js';

export { createToxic, parseToxicSpec, TOXIC_TYPES, ToxicSet, ToxicExistsError } from './toxics/index.js';
export type { Toxic, ToxicCount, ToxicEnv, ToxicSpec, Stream } from './toxics/index.js';
export { startToxiproxyServer, DEFAULT_API, type ToxiproxyServer, type ToxiproxyServerOptions } from './toxiproxy-api/toxiproxy-server.js';

export { startPrivateRedis } from './redis/index.js';
export type { PrivateRedis, PrivateRedisOptions } from './redis/index.js';
export { startPrivateCluster } from './redis/index.js';
export type { PrivateCluster, PrivateClusterNode, PrivateClusterOptions } from './redis/index.js';
export { startPrivateSentinel } from './redis/index.js';
export type { PrivateSentinel, PrivateSentinelOptions } from './redis/index.js';

export { PRESETS, PRESET_NAMES, findPreset, type Preset } from './link/presets.js';
export { parseLinkSpec, type LinkSpec } from './link/link-spec.js';
export { DelayLine, type DelayLineOptions } from './link/delay-line.js';
export { PreciseScheduler } from './link/scheduler.js';
export { ManualScheduler } from './link/manual-scheduler.js';
export { jitterSampler } from './link/jitter.js';
export type { LinkSettings, LinkUpdate, JitterDist } from './link/types.js';

export { RequestFramer, ReplyFramer, commandName, RespType } from './resp/index.js';
export type { RequestFrame, ReplyFrame, FrameSink, Framer, FramerOptions } from './resp/types.js';

export { StatsCollector } from './stats/stats-collector.js';
export { LatencyHistogram } from './numbers/histogram.js';
export { renderPrometheus } from './stats/prometheus.js';
export type {
  Counters,
  CommandStats,
  ConnectionInfo,
  LatencySummary,
  StatsSnapshot,
  TapEvent,
  CommandEvent,
  PushEvent,
  ConnectionEvent,
  TlsEvent,
} from './stats/types.js';

export { runBench, type BenchOptions } from './workload/bench.js';
export { runDemo } from './workload/demo.js';
export { runOpenLoopBench, type OpenLoopProgress } from './workload/open-loop/bench.js';
export type { OpenLoopOptions } from './workload/open-loop/options.js';
export { isOpenLoopOk, type MeasuredOpenLoopResult, type OpenLoopReport, type OpenLoopResult, type PercentilesUs } from './workload/open-loop/types.js';
export { buildArrivalSchedule, type Arrival } from './workload/open-loop/schedule.js';
export { OpenLoopDispatcher, type DispatcherOptions, type OpenLoopBatch } from './workload/open-loop/dispatcher.js';
export { isOk, type BenchReport, type BenchResult, type MeasuredResult, type CalibrateReport, type Mode, type Workload } from './results/types.js';
export { runCalibrate, type CalibrateOptions } from './calibrate/run.js';

export { renderTable, renderCsv, renderMarkdown, renderHtml, renderCalibrateTable } from './report/index.js';
export type { TableOptions, HtmlOptions, CalibrateTableOptions } from './report/index.js';

export { FakeClock, realClock, type Clock } from './clock.js';
export { ConfigError, RedisSpawnError, VerificationError, NetworkError } from './errors.js';
