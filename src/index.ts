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
export { runBench, runCalibrate, runOpenLoopBench, startProxy, startSentinelProxy, startToxiproxyServer } from './api/key-errors.js';
export type { CloseOptions, ProxyOptions, ProxyHooks, RedisRttProxy } from './proxy/types.js';
export type { Endpoint } from './endpoint.js';
export type { Compensation, CompensationPoint } from './link/compensation.js';
export type { TlsCounters } from './tls/counters.js';
export type { UpstreamTlsOptions } from './tls/options.js';
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
  EndKind,
  WakeListener,
  Timer,
  PollRunEnd,
  DeliverySource,
  MatchedReply,
  FramedTap,
} from './stage/types.js';
export { measureHop, type HopEstimate } from './proxy/hop.js';
export type { RedisRttClusterProxy, ClusterNodeView, ClusterStats, ClientZoneView, ClientZoneStats } from './cluster/cluster-view.js';
export type { NodeRole, ListenerRole } from './cluster/topology.js';
export type { RewriteKind } from './cluster/types.js';
export type { ClusterProxyOptions } from './cluster/options.js';
export type { SentinelProxyOptions } from './sentinel/options.js';
export type { RedisRttSentinelProxy, SentinelStats } from './sentinel/sentinel-proxy.js';
export type { SentinelRewriteKind } from './sentinel/types.js';
export type { PrimaryAnswersView } from './sentinel/primary-answers.js';

export { createToxic, parseToxicSpec, TOXIC_TYPES, ToxicSet, ToxicExistsError } from './toxics/index.js';
export type { Toxic, ToxicCount, ToxicEnv, ToxicSpec, Stream, UnknownToxicKeys } from './toxics/index.js';
export type { ToxicDefinition, ByteToxicDefinition, ToxicByteStage, ToxicFrameStage, FrameToxicDefinition, ByteStageArgs, FrameStageArgs } from './toxics/definition.js';
export type { Uniform } from './link/rng.js';
export { DEFAULT_API, type ToxiproxyServer, type ToxiproxyServerOptions } from './toxiproxy-api/toxiproxy-server.js';

export { startPrivateRedis } from './redis/index.js';
export type { PrivateRedis, PrivateRedisOptions } from './redis/index.js';
export type { TlsFiles } from './redis/tls-certs.js';
export { startPrivateCluster } from './redis/index.js';
export type { PrivateCluster, PrivateClusterNode, PrivateClusterOptions } from './redis/index.js';
export { startPrivateSentinel } from './redis/index.js';
export type { PrivateSentinel, PrivateSentinelOptions } from './redis/index.js';

export { PRESETS, PRESET_NAMES, findPreset, type Preset } from './link/presets.js';
export { parseLinkSpec, type LinkSpec } from './link/link-spec.js';
export { DelayLine, type DelayLineOptions } from './link/delay-line.js';
export { PreciseScheduler } from './link/scheduler.js';
export type { PreciseSchedulerOptions } from './link/scheduler-options.js';
export type { WakeKind } from './link/waker.js';
export { ManualScheduler } from './link/manual-scheduler.js';
export { jitterSampler } from './link/jitter.js';
export type { LinkSettings, LinkUpdate, JitterDist } from './link/types.js';
export type { LossCounters } from './link/loss-model.js';
export type { PartitionEnd } from './link/partition.js';
export type { TimelineReport, PartitionReport, SkippedStep } from './link/timeline-report.js';
export type { RttWave, WaveShape } from './link/wave.js';

export { RequestFramer, ReplyFramer, commandName, RespType } from './resp/index.js';
export type { RequestFrame, ReplyFrame, FrameSink, Framer, FramerOptions } from './resp/types.js';
export type { RequestFramerOptions } from './resp/request-framer.js';

export { StatsCollector, type StatsCollectorOptions, type OpenConnectionOptions } from './stats/stats-collector.js';
export { LatencyHistogram } from './numbers/histogram.js';
export { renderPrometheus, type MetricFamily, type MetricSample, type MetricType } from './stats/prometheus.js';
export type { SelfReport, SelfQuantiles } from './stats/self-report.js';
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
  TapHealth,
  SentinelBlock,
} from './stats/types.js';

export type { BenchOptions } from './workload/bench.js';
export type { BenchProgress } from './workload/runner.js';
export type { PlanRequest, Configuration } from './workload/plan.js';
export { runDemo, type DemoOptions } from './workload/demo.js';
export type { OpenLoopProgress } from './workload/open-loop/bench.js';
export type { OpenLoopRunProgress } from './workload/open-loop/run.js';
export type { OpenLoopOptions } from './workload/open-loop/options.js';
export { isOpenLoopOk, type MeasuredOpenLoopResult, type OpenLoopReport, type OpenLoopResult, type OpenLoopMode, type PercentilesUs } from './workload/open-loop/types.js';
export { buildArrivalSchedule, type Arrival, type ScheduleOptions } from './workload/open-loop/schedule.js';
export { OpenLoopDispatcher, type DispatcherOptions, type OpenLoopBatch } from './workload/open-loop/dispatcher.js';
export { isOk, type BenchReport, type BenchResult, type MeasuredResult, type CalibrateReport, type CalibrateRow, type LatencyUs, type Mode, type Workload, type Method, type Breakdown, type Environment, type ConnectionSetup } from './results/types.js';
export type { StopSignalName } from './results/interrupted.js';
export type { CalibrateOptions } from './calibrate/run.js';

export { renderTable, renderCsv, renderMarkdown, renderHtml, renderCalibrateTable } from './report/index.js';
export type { TableOptions, HtmlOptions, CalibrateTableOptions } from './report/index.js';

export { FakeClock, realClock, type Clock } from './clock.js';
export { ConfigError, RedisSpawnError, VerificationError, NetworkError } from './errors.js';
