import { clusterSettings } from '../cluster/cluster-settings.js';
import { certificateError, clusterListenTls, discoveryTls } from '../cluster/cluster-tls.js';
import { ClientZones } from '../cluster/client-zones.js';
import { ListenPortRange } from '../cluster/listen-ports.js';
import { NodeSet } from '../cluster/node-set.js';
import { NodeStarter } from '../cluster/node-starter.js';
import { checkStartPartition, startPartition } from '../cluster/start-cluster.js';
import { nodeKey } from '../cluster/topology.js';
import type { RealAddress } from '../cluster/types.js';
import { formatEndpoint } from '../endpoint.js';
import { ConfigError } from '../errors.js';
import { startSingleNodeProxy } from '../proxy/index.js';
import type { ProxyOptions } from '../proxy/types.js';
import type { SentinelReading } from './discover.js';
import { FailoversSeen } from './failovers-seen.js';
import { GivenNames } from './given-names.js';
import { sentinelSettings, type SentinelProxyOptions } from './options.js';
import { PrimaryAnswers } from './primary-answers.js';
import { CertificateWarnings } from './certificate-warnings.js';
import { checkStartCertificates } from './primary-certificate.js';
import { SentinelCounts } from './sentinel-counts.js';
import { SentinelProxy, type RedisRttSentinelProxy } from './sentinel-proxy.js';
import { SentinelRefresh } from './sentinel-refresh.js';
import { sentinelStage } from './sentinel-stage.js';
import { SentinelTopology } from './sentinel-topology.js';
import { SentinelZones } from './zones.js';

/**
 * Sentinel mode's start-up, in order: the options checked, the given sentinels' names resolved,
 * every given sentinel asked about the master (the first that answers speaks for the topology),
 * with --upstream-tls the primary's and the replicas' certificates checked, one listener pair for TLS, the first
 * sentinel's listener on --listen, every other sentinel's and
 * every data node's listener, the control endpoint, then the refresh timer. A step that fails
 * closes what the ones before opened.
 */
export async function startSentinelProxy(options: SentinelProxyOptions): Promise<RedisRttSentinelProxy> {
  // First: it refuses options that are no object, which the log's read threw a TypeError for.
  const sentinel = sentinelSettings(options);
  const log = options.log ?? ((line: string) => process.stderr.write(`redis-rtt: ${line}\n`));
  checkStartPartition(options);
  // The node proxies are single-node proxies whose upstream each starter call sets.
  const base: ProxyOptions = { ...options, upstream: nodeKey(sentinel.addresses[0]!.host, sentinel.addresses[0]!.port), cluster: 'off' };
  const s = clusterSettings(base, log);
  const secure = discoveryTls(base);
  const auth = { user: sentinel.sentinelUser, password: sentinel.sentinelPassword };
  const answers = new PrimaryAnswers(sentinel.sentinelMaster, log);
  const zones = new SentinelZones(s.zoneCount);
  const topology: SentinelTopology = new SentinelTopology(() => sets, zones, await GivenNames.resolve(sentinel.addresses));
  const certificates = secure ? new CertificateWarnings(base, secure, log) : undefined;
  const failovers = new FailoversSeen();
  const refresh = new SentinelRefresh({
    ...{ given: sentinel.addresses, master: sentinel.sentinelMaster, topology, answers, failovers },
    ...{ auth, tls: secure, periodMs: sentinel.refreshMs, certificates, log },
  });
  const first = await firstReading(refresh, sentinel.addresses, sentinel.sentinelMaster, base, log);
  if (secure && certificates) certificates.verified(await checkStartCertificates(first, secure, base));
  const listenTls = clusterListenTls(base);
  const counts = new SentinelCounts(log);
  const starter = new NodeStarter({
    options: base,
    startNodeProxy: (o, node) => startSingleNodeProxy({ ...o, cluster: 'off' }, node),
    listenHost: s.listen.host,
    announceHost: s.announceHost,
    listenTls: listenTls.listen,
    log,
  });
  const stageFor = (at: RealAddress, zone: number) =>
    sentinelStage({
    ctx: topology.ctxFor(zone),
    open: async (missing) => {
      await Promise.all([topology.openSentinels(missing.sentinels), topology.openNodes(missing.nodes)]);
      void refresh.refresh();
    },
    onRewrite: (k) => counts.rewritten(k),
    onUnparsed: (why) => counts.unparsedReply(why),
    onOpenFailed: (missing, err) => starter.openFailures.failed([...missing.sentinels, ...missing.nodes], err),
    onPrimary: (master, primary) => void (master === sentinel.sentinelMaster && answers.record(at, primary)),
  });
  // One range for every set: a port one set gives back is not another's while others are free.
  const listenPorts = s.listenPorts && new ListenPortRange(s.listenPorts);
  // One set per client zone (--client-zones), each rewriting to its own listeners.
  const zoneSet = (zone: number): NodeSet =>
    new NodeSet({
      announceHost: s.announceHost,
      listenPorts,
      zoneLinks: s.zoneLinks,
      clientZone: zone,
      nameClientZone: s.clientZoneCount !== undefined,
      rules: [...s.rules],
      base: options.link ?? {},
      log,
      stageFor: (a) => (topology.isSentinel(a) ? stageFor(a, zone) : undefined),
      startNodeProxy: (a, port, link, st, namedZone) => starter.start(a, port, link, st, namedZone),
    });
  const sets = new ClientZones(
    Array.from({ length: s.clientZoneCount ?? 1 }, (_, i) => ({ zone: i + 1, nodes: zoneSet(i + 1) })),
    s.clientZoneCount !== undefined,
  );
  const proxy = new SentinelProxy(sets, starter, refresh, sentinel.sentinelMaster, answers, counts, failovers, listenTls, log);
  try {
    await topology.openAtStart(sentinel.addresses, first, s.listen.port);
    await topology.openSentinels(sentinel.addresses.slice(0, 1), s.listen.port);
    await topology.openSentinels(sentinel.addresses.slice(1));
    await topology.apply(first);
    await refresh.refresh();
    startPartition(options, sets);
    await proxy.startControl(s.control, log);
  } catch (err) {
    await proxy.close();
    throw err;
  }
  refresh.start();
  return proxy;
}

/**
 * The first given sentinel that knows the master; a ConfigError naming the flag when none does, with every
 * given sentinel that failed (its address and why) in it: a certificate that does not verify names its flag
 * and the others' failures too, and an unknown master name the sentinels that did not answer, which may
 * monitor it.
 */
async function firstReading(
  refresh: SentinelRefresh,
  given: readonly RealAddress[],
  master: string,
  base: ProxyOptions,
  log: (line: string) => void,
): Promise<SentinelReading> {
  const all = await refresh.readAll(given);
  const found = all.find((x) => !(x.reading instanceof Error) && x.reading.primary !== undefined);
  if (found) {
    // Said now: clients given that sentinel's listener (--listen, for the first) would be refused with no word why.
    all.forEach((x, i) => {
      if (!(x.reading instanceof Error)) return;
      const on = i === 0 ? ' (its listener is --listen)' : '';
      const why = x.reading.message.replace(/^sentinel \S+: /, '');
      log(`warning: sentinel ${shown(x.sentinel)}${on} did not answer at start: ${why}; its listener turns clients away until it does`);
    });
    return found.reading as SentinelReading;
  }
  // Each message names its sentinel (`sentinel 127.0.0.1:26379: connect ECONNREFUSED ...`).
  const failures = all.filter((x) => x.reading instanceof Error).map((x) => x.reading as Error);
  const bad = failures.map((f) => certificateError(base, f));
  const first = bad.findIndex((e) => e !== undefined);
  if (first >= 0) {
    const others = failures.filter((_, i) => i !== first).map((f) => f.message);
    if (others.length === 0) throw bad[first]!;
    const e = bad[first]!;
    throw new ConfigError(e.flag, e.value, `${e.accepts}; the other sentinels that failed: ${others.join('; ')}`);
  }
  const answered = all.filter((x) => !(x.reading instanceof Error)).map((x) => x.reading as SentinelReading);
  if (answered.length === 0) {
    const given = all.map((x) => shown(x.sentinel)).join(',');
    throw new ConfigError('--sentinel', given, `a sentinel that answers (${failures.map((f) => f.message).join('; ')})`);
  }
  const known = answered.map((r) => `${shown(r.sentinel)} monitors ${r.masters.length > 0 ? r.masters.join(', ') : 'no master'}`);
  const unasked = failures.length === 0 ? '' : `; did not answer, so may monitor it: ${failures.map((f) => f.message).join('; ')}`;
  throw new ConfigError('--sentinel-master', master, `a master name the sentinels monitor (${known.join('; ')}${unasked})`);
}

/** A sentinel as the user types it in --sentinel (`[::1]:26379`, not the bare key `::1:26379`): what its messages show. */
function shown(a: RealAddress): string {
  return formatEndpoint({ kind: 'tcp', ...a });
}
