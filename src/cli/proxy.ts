import { Option, type Command } from 'commander';
import { ConfigError, withTypedValue } from '../errors.js';
import { formatEndpoint } from '../endpoint.js';
import { probeUpstream } from '../proxy/probe.js';
import { normalizeProxyOptions } from '../proxy/normalize-options.js';
import { isRefusal } from '../proxy/refusal-watch.js';
import type { ProxyOptions, RedisRttProxy } from '../proxy/types.js';
import { fdLimitWarning } from '../proxy/fd-limit.js';
import { parsePositiveInt } from '../units.js';
import { DEFAULT_MAX_PENDING_PER_CONNECTION, DEFAULT_MAX_PENDING_TOTAL } from '../tap/pending-budget.js';
import { checkClientZones, checkZones, DEFAULT_CLUSTER, parseClusterMode } from '../cluster/options.js';
import { addLinkFlags, linkFromFlags } from './link-flags.js';
import { addTimelineFlags, rampingScheduleMoves, timelineFromFlags } from './timeline-flags.js';
import { endSession, listeningLine } from './proxy-session.js';
import { COMPENSATE_HELP, parseCompensateFlag } from './compensate-flag.js';
import { applyLinkUpdate, defaultLinkSettings } from '../link/settings.js';
import { addToxicFlags, toxicsFromFlags } from './toxic-flags.js';
import { parseToxicSpec } from '../toxics/spec.js';
import { addRecordFlags, checkRecordFlags, recordOptionsFromFlags } from '../record/cli-options.js';
import { addTlsFlags, tlsFromFlags } from './tls-flags.js';
import { addSentinelFlags } from './sentinel-flags.js';
import { checkTlsFiles, loadUpstreamTls } from '../tls/options.js';
import type { LinkUpdate } from '../link/types.js';
import { checkAddressFlags, limitsFromFlags, typedNumbers, type ProxyFlags } from './proxy-flags.js';
import { mergeFileLink, mergeProxyConfig, readProxyConfig, renderEffectiveConfig, type ProxyConfig } from './proxy-config.js';
import { withFileKey } from './file-key-errors.js';
import { applyNegations, givenBy } from './config-negations.js';
import { collectStartupGarbage } from '../proxy/gc-flags.js';
import { sharedScheduler } from '../link/shared-scheduler.js';
import { hopOnlyHint, wakeKindNote } from './proxy-notes.js';
import { checkOutputs } from './json-out.js';
import { abortOnStop, untilStopSignal } from './stop-request.js';

/** Where the control token may come from instead of argv, so it does not show in `ps`. */
export const CONTROL_TOKEN_ENV = 'REDIS_RTT_CONTROL_TOKEN';

export function registerProxy(program: Command): void {
  const cmd = program
    .command('proxy')
    .description(
      'Run the latency proxy: clients connect to --listen, bytes go to --upstream untouched, each direction ' +
        'delayed by the link. Prints one JSON line with the bound addresses on stdout; logs go to stderr. ' +
        'Ctrl-C prints a summary of what crossed (and writes --stats-json).',
    )
    .option('--config <file>', 'a JSON file of startProxy() options (link, toxics, cluster, zones, TLS, record, control; schema: docs/proxy-options.schema.json); flags given win, repeatable ones append')
    .option(
      '--print-config',
      'print the effective configuration (the file and the flags merged, secrets redacted) as JSON and exit; checks the flags and the files they name, exit 2 as the start would, but connects to nothing: what the upstream is (--zones against a single Redis) or an address in use is refused only at the start',
    )
    .option('--upstream <addr>', 'the Redis to proxy: host:port or unix:/path/redis.sock (required unless --sentinel)')
    .option('--listen <addr>', 'where clients connect: host:port (port 0 = any free port) or a unix socket path', '127.0.0.1:0')
    .option('--control <addr>', 'start the HTTP control endpoint here (a live dashboard at GET /; GET /stats /metrics /connections, PUT /link, POST /reset)')
    .option('--no-control', 'no control endpoint (the default; over a --config file\'s "control", its controlToken and allowHosts dropped with it)')
    .option('--control-token <token>', `require "Authorization: Bearer <token>" on control requests (or set ${CONTROL_TOKEN_ENV}, which ps does not show)`)
    .option('--allow-host <name>', 'a Host the control endpoint accepts besides its address and localhost (repeatable; name or name:port); needed, or a token, to bind --control to 0.0.0.0', (v: string, list: string[]) => [...list, v], [] as string[]);
  addTimelineFlags(addLinkFlags(cmd))
    .option('--no-handshake', 'do not charge one RTT for connection set-up (a real TCP handshake costs one)')
    .option('--handshake', 'charge it (the default; over a --config file\'s "handshake": false)')
    .option('--compensate <auto|off|calibrate|duration|file>', `${COMPENSATE_HELP}; calibrate: measure this link against the upstream before listening and take off what it adds`, 'auto')
    .option('--high-water <size>', 'bytes held per direction before reading from its source pauses (resumes at half); kb = 1000 bytes, kib = 1024', '4mib')
    .option('--connect-timeout <duration>', 'close the client if Redis does not accept the connection within this time', '10s')
    .option('--idle-timeout <duration>', 'close a connection idle this long (no bytes either way, no request awaiting a reply, not subscribed or monitoring); 0 = never', '0')
    .option('--max-connections <n>', 'close new clients at once while this many are connected; 0 = no limit', '0')
    .option('--warm-up <connections>', 'at start, this many connections through the proxy (a PING each, counters zeroed after) so V8 compiles the set-up path before the first client; 0 = none', '0')
    .option('--max-pending <n>', 'unfinished requests one connection\'s tap holds before it stops timing that connection (bytes untouched)', String(DEFAULT_MAX_PENDING_PER_CONNECTION))
    .option('--max-pending-total <n>', 'unfinished requests all taps hold together before the next connection to ask stops being timed', String(DEFAULT_MAX_PENDING_TOTAL))
    .option('--no-tap', 'do not parse RESP (a plain delaying byte pipe: no command or round-trip counts)')
    .option('--tap', 'parse it (the default; over a --config file\'s "tap": false)')
    .option('--stats-json <file>', 'write the final stats snapshot here on exit')
    .option('--no-stats-json', 'write none (the default; over a --config file\'s "statsJson")')
    .addOption(new Option('--cluster <mode>', 'Redis Cluster: one listener per node, addresses in replies rewritten (auto: when INFO cluster says cluster_enabled:1)').choices(['auto', 'on', 'off']).default('auto'))
    .option('--announce-host <host>', 'cluster and sentinel modes: the host written into rewritten replies (default: the --listen host; set it when listening on 0.0.0.0)')
    .option('--listen-ports <A-B>', 'cluster and sentinel modes: ports for the listeners of the nodes other than the seed (default: any free port)')
    .option('--zones <n>', 'cluster and sentinel modes: place the nodes in N zones (cluster: shard i primary in zone i mod N + 1; sentinel: docs/sentinel.md#zones); the client is in zone 1')
    .option('--client-zones <n>', 'cluster, sentinel: clients in zones 1..N (N at most --zones): one set of listeners per client zone, each node\'s link by its zone and the set\'s (the JSON line lists each zone\'s seed)')
    .option('--same-zone-link <link>', 'cluster and sentinel modes: link of the nodes in the client\'s zone (preset or rtt=..)', 'same-az')
    .option('--cross-zone-link <link>', 'cluster and sentinel modes: link of the nodes in other zones', 'cross-az')
    .option('--node-link <selector=link>', 'cluster and sentinel modes: link for some nodes (selector: host:port, id prefix, masters, replicas, sentinels); repeatable, last wins', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--upstream-user <user>', 'cluster: ACL user for the proxy\'s own discovery connections (password from REDIS_RTT_UPSTREAM_PASSWORD)');
  addSentinelFlags(cmd);
  addTlsFlags(cmd);
  addToxicFlags(cmd);
  addRecordFlags(cmd)
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  redis-rtt proxy --upstream 127.0.0.1:6379 --listen 127.0.0.1:6380 --preset cross-az\n' +
        '  redis-rtt proxy --config proxy.json --rtt 5ms --print-config   # the file with a flag over it, merged and shown (docs/cli.md)\n' +
        '  redis-rtt proxy --upstream unix:/tmp/redis.sock --listen :0 --rtt 1.2ms --jitter 0.1ms --jitter-dist normal\n' +
        '  redis-rtt proxy --upstream 127.0.0.1:6379 --preset cross-az --loss 1% --seed 7   # a lost segment costs an RTO (~201 ms)\n' +
        '  redis-rtt proxy --upstream 127.0.0.1:6379 --rtt 85ms --loss-down 0.5% --loss-burst 3   # bursts of 3 lost segments, replies only\n' +
        '  redis-rtt proxy --upstream :6379 --toxic \'{"type":"redis_error","toxicity":0.1,"attributes":{"commands":["GET"],"error":"LOADING Redis is loading"}}\'\n' +
        '  redis-rtt proxy --upstream :6379 --control 127.0.0.1:7070 --rtt 85ms   # then: curl -X PUT -d \'{"rttUs":200}\' 127.0.0.1:7070/link\n' +
        '    # or open http://127.0.0.1:7070/ in a browser: the live dashboard (with --control-token T: once as /?token=T)\n' +
        '  redis-rtt proxy --upstream redis.example.com:6380 --upstream-tls --listen :6380 --rtt 85ms   # plaintext clients, TLS to Redis\n' +
        '  redis-rtt proxy --upstream 127.0.0.1:6379 --listen-tls --rtt 20ms   # rediss:// clients: trust the tlsCa the JSON line prints\n' +

        '  redis-rtt proxy --upstream :6379 --rtt 85ms --rtt-wave sine:60s:20ms   # RTT 65..105 ms over each minute\n' +
        '  ping -D -c 3600 redis.example.com > path.txt; redis-rtt proxy --upstream :6379 --rtt-series path.txt   # replay a measured path\n' +
        '  redis-rtt proxy --upstream :6379 --control 127.0.0.1:7070 --rtt 1ms   # then: curl -X PUT -d \'{"partition":"10s"}\' 127.0.0.1:7070/link\n' +
        '  redis-rtt proxy --upstream 127.0.0.1:30001 --listen 127.0.0.1:7000 --rtt 20ms   # a cluster: one listener per node\n' +
        '  redis-rtt proxy --upstream 127.0.0.1:30001 --zones 3 --node-link replicas=same-az --control :7070\n' +
        '  redis-rtt proxy --upstream 127.0.0.1:30001 --zones 3 --client-zones 3   # apps in zone k use clientZones[k-1].seed\n' +
        '    # then: curl -X PUT -d \'{"rttUs":5000}\' \'127.0.0.1:7070/link?node=masters\'\n' +
        '  redis-rtt proxy --sentinel 127.0.0.1:26379,127.0.0.1:26380 --sentinel-master mymaster --listen 127.0.0.1:7000 --rtt 20ms\n' +
        '    # Sentinel clients: give them 127.0.0.1:7000 as their sentinel; every sentinel and node has a listener\n' +
        '  redis-rtt proxy --sentinel 127.0.0.1:26379 --sentinel-master mymaster --zones 3 --node-link sentinels=same-az',
    )
    .action(async (flags: ProxyFlags, command: Command) => {
      const config = flags.config === undefined ? undefined : mergeProxyConfig(flags, command, await readProxyConfig(flags.config));
      // The token's environment variable is a flag given: it wins over the file's controlToken.
      if (config && process.env[CONTROL_TOKEN_ENV] && command.getOptionValueSource('controlToken') !== 'cli') config.flags.controlToken = undefined;
      const merged = config?.flags ?? applyNegations(flags, {}, givenBy(command));
      await runProxy(merged, config?.file ?? {}).catch((err: unknown) => {
        throw withFileKey(err, merged);
      });
    });
}

async function runProxy(flags: ProxyFlags, file: ProxyConfig): Promise<void> {
  const { update: flagLink, seed } = linkFromFlags(flags);
  const update = mergeFileLink(file.link as LinkUpdate | undefined, flagLink);
  const fileToxics = ((file.toxics as unknown[] | undefined) ?? []).map((t) => parseToxicSpec(t, 'refuse'));
  // The file's own names were checked with it: a clash is with a --toxics entry or a --toxic, which names it.
  const toxics = [...fileToxics, ...toxicsFromFlags(flags, fileToxics)];
  const printOnly = flags.printConfig === true;
  const timeline = timelineFromFlags(flags);
  const { sentinel, upstream } = checkAddressFlags(flags, file);
  const calibrate = flags.compensate === 'calibrate';
  // The file's compensationUs is in force unless --compensate was given (mergeProxyConfig drops it then).
  const compensateMode = file.compensationUs === undefined ? flags.compensate : 'compensationUs';
  // Both sides as the start gets them: a side no TLS flag touched stays the file's (config-tls.ts).
  const tls = { ...definedOnly(file, ['upstreamTls', 'listenTls']), ...definedOnly(tlsFromFlags(flags)) } as Pick<ProxyOptions, 'upstreamTls' | 'listenTls'>;
  let compensationUs = calibrate ? undefined : ((file.compensationUs as ProxyOptions['compensationUs']) ?? parseCompensateFlag(flags.compensate));
  const log = (line: string): void => void process.stderr.write(`redis-rtt: ${line}\n`);
  // Written when the proxy stops: a path that cannot take it is refused now, not after the session. Its
  // folder is made then too: a start that fails (or --print-config) leaves none behind.
  const statsJson = { '--stats-json': flags.statsJson };
  // The trace too, though it is opened at start (recorder.ts): on the --stats-json file it was replaced
  // by the snapshot at exit, and on the --config file (with --record-overwrite) it replaced the config.
  const reads = [flags.config, flags.toxics, flags.linkSchedule, flags.rttSeries].filter((f) => f !== undefined);
  checkOutputs({ '--record': flags.record, ...statsJson }, {}, reads, { makeFolders: false });
  if (printOnly) checkRecordFlags(flags); // as the start would, without creating the trace
  // A file's rttWave or rttSeries moves the link as its flag does (the flag wins when both are given); so
  // does a schedule's ramp, whose link line holds only its target.
  const moreLinkMoves = [
    ...(['rttWave', 'rttSeries'] as const).filter((k) => file[k] !== undefined && flags[k] === undefined),
    ...rampingScheduleMoves(timeline.linkSchedule, file.linkSchedule),
  ];
  const record = printOnly ? undefined : recordOptionsFromFlags(flags, { link: update, handshake: flags.handshake, log, moreLinkMoves });
  let proxy: RedisRttProxy;
  let stopped: Promise<void>;
  // A signal while starting (calibrating, binding, a cluster's node proxies) waits for the start to end,
  // then closes what it started and says so: with Node's default it exited 130 or 143 without a word.
  const startStop = printOnly ? undefined : abortOnStop((quit) => log(`stopping: the start-up was cut short; closing what it started ${quit}`));
  try {
    const fdWarning = fdLimitWarning();
    if (fdWarning) log(fdWarning);
    if (calibrate && tls.listenTls) {
      // Its PINGs go through a plaintext listener of its own: the TLS stages clients go through would
      // not be in the figure. auto measures the hop over TLS on both sides.
      const why = 'auto, a duration or a file with --listen-tls (calibrate measures through a plaintext listener, not the TLS one clients use)';
      throw new ConfigError('--compensate', 'calibrate', why);
    }
    if (calibrate && sentinel) {
      throw new ConfigError('--compensate', 'calibrate', 'auto, a duration or a file with --sentinel (calibrate measures one upstream; sentinel mode has many)');
    }
    if (calibrate && !printOnly) {
      const { calibrateAtStart } = await import('../calibrate/at-start.js');
      compensationUs = await calibrateAtStart(flags.upstream!, applyLinkUpdate(defaultLinkSettings(), update), log, tls.upstreamTls);
    }
    const fromFlags: Omit<ProxyOptions, 'upstream'> = {
      listen: flags.listen,
      control: flags.control,
      controlToken: flags.controlToken ?? (process.env[CONTROL_TOKEN_ENV] || undefined),
      allowHosts: flags.allowHost,
      link: update,
      ...timeline,
      seed,
      handshake: flags.handshake,
      tap: flags.tap,
      compensationUs,
      ...limitsFromFlags(flags),
      // Only when some are given: `toxics` frames every connection, which costs the fast path.
      toxics: toxics.length > 0 ? toxics : undefined,
      log,
      onEvent: record?.onEvent,
      keyHash: record?.keyHash,
      argSizes: record?.argSizes,
      onLinkChange: record ? (l) => record.linkChanged(l) : undefined,
      onNodeLinkChange: record?.nodeLinkChanged,
      ...tls,
      announceHost: flags.announceHost,
      listenPorts: flags.listenPorts,
      zones: flags.zones === undefined ? undefined : checkZones(parsePositiveInt(flags.zones, '--zones', 16)),
      clientZones: flags.clientZones === undefined ? undefined : parsePositiveInt(flags.clientZones, '--client-zones', 16),
      // Their defaults are the start's own: passed only when set, so one given without --zones is refused.
      sameZoneLink: flags.sameZoneLink === DEFAULT_CLUSTER.sameZoneLink ? undefined : flags.sameZoneLink,
      crossZoneLink: flags.crossZoneLink === DEFAULT_CLUSTER.crossZoneLink ? undefined : flags.crossZoneLink,
      nodeLinks: flags.nodeLink,
    };
    // The file's options without a flag (rttWave, ...) under what the flags set.
    const common = { ...file, ...definedOnly(fromFlags) } as Omit<ProxyOptions, 'upstream'>;
    if (printOnly) {
      // The start reads the TLS files the flags name (a file's were read with it): so does this.
      checkTlsFiles(tls.upstreamTls, tls.listenTls);
      // Every mode's start refuses client zones without --zones or beyond them (cluster and Sentinel
      // as these words say; single-node refuses them all): --print-config printed them and exited 0.
      checkClientZones(common.clientZones, common.zones);
      // Every option as the start checks it (in sentinel mode, as its node proxies get them): a
      // --warm-up 100001, an empty --control-token or a 0.0.0.0 --control printed and exited 0.
      const upstreamPassword = process.env.REDIS_RTT_UPSTREAM_PASSWORD || (file.upstreamPassword as string | undefined);
      normalizeProxyOptions(
        sentinel
          ? { ...common, upstream: sentinel.sentinels[0]!, cluster: 'off' }
          : { ...common, upstream: flags.upstream!, cluster: parseClusterMode(flags.cluster), upstreamUser: flags.upstreamUser, upstreamPassword },
      );
      const upstreamOptions = sentinel ? sentinel : { upstream: flags.upstream, cluster: flags.cluster, upstreamUser: flags.upstreamUser };
      process.stdout.write(renderEffectiveConfig({ ...common, ...upstreamOptions }, flags));
      // It has no key: the output alone, fed back as a config, would start with auto.
      if (calibrate) log('note: --compensate calibrate has no config key and is not in this output: give it as a flag with --config');
      return;
    }
    // Loaded here, not at the top: a run that stops at its flags (exit 2, --print-config, --help) then
    // loads none of the proxy's modules, most of what the CLI would load.
    proxy = sentinel
      ? await (await import('../sentinel/start-sentinel.js')).startSentinelProxy({ ...common, ...sentinel })
      : await (await import('../cluster/start-proxy.js')).startProxy({
          ...common,
          upstream: flags.upstream!,
          cluster: parseClusterMode(flags.cluster),
          upstreamUser: flags.upstreamUser,
          // The environment wins over the file's key, as REDIS_RTT_SENTINEL_PASSWORD over sentinelPassword.
          upstreamPassword: process.env.REDIS_RTT_UPSTREAM_PASSWORD || (file.upstreamPassword as string | undefined),
        });
    if (startStop?.signal.aborted) {
      await proxy.close();
      // main reports it as `stopped on request (...)` with the signal's status (130, 143, 129); the
      // catch below removes the trace.
      throw new Error(`${String(startStop.signal.reason)} during start-up; what it started is closed`);
    }
    // The run's stop is in place before the start-up's goes: a signal already received and not yet
    // handed to JavaScript went to the start-up's handler as it was removed, and was lost (the
    // proxy printed its listening line and ran on); between the two, Node's default killed it.
    // Before the listening line: a script that signals as soon as it reads the line gets the clean
    // close (summary, trace, --stats-json), not Node's default exit by the signal.
    stopped = untilStopSignal();
  } catch (err) {
    // A start that failed (an address in use, a refused option) leaves no trace behind: the same
    // command, corrected, must not be refused for the file this one created.
    await record?.discard();
    // The start checks these as numbers: its error shows the text typed ("002", "1kb"), not 2 or 1000.
    throw withTypedValue(err, typedNumbers(flags));
  } finally {
    startStop?.dispose();
  }
  // The two refusals of --compensate calibrate above: the hint offers only what would start.
  const hint = hopOnlyHint(compensateMode, proxy.link(), !sentinel && !tls.listenTls);
  if (hint) log(hint);
  const wakeNote = wakeKindNote(process.platform, sharedScheduler().wakeKindInUse);
  if (wakeNote) log(wakeNote);
  collectStartupGarbage();
  // "localhost" shows as localhost:6379: the port it means.
  const upstreamText = upstream === undefined ? null : upstream.kind === 'tcp' ? formatEndpoint(upstream) : flags.upstream!;
  process.stdout.write(listeningLine(proxy, { upstream: upstreamText, sentinel }));
  // The proxy dials Redis per client, so a missing Redis is not fatal; say so now rather than on
  // the first client's close.
  // --compensate auto already said "not Redis" while measuring; the other modes hear it here.
  // Checked by startProxy already; rebuilt here without its warning so the probe speaks TLS too.
  const upTls = tls.upstreamTls;
  const probeTls = upTls && upstream?.kind === 'tcp' ? loadUpstreamTls(upTls === true ? {} : upTls, upstream.host, () => undefined) : undefined;
  // Sentinel mode asked every sentinel at start already.
  if (upstream) void probeUpstream(upstream, undefined, probeTls).then((r) => {
    // A refusal closed the listener already (refusal-watch.ts): clients are refused, not dialed through.
    const then = r && 'unreachable' in r && isRefusal(r.unreachable) ? 'clients are refused until it answers' : 'will try on each client connection';
    if (r && 'unreachable' in r) log(`warning: upstream ${flags.upstream} not reachable now: ${r.unreachable}; ${then}`);
    if (r && 'notRedis' in r && compensateMode !== 'auto') log(`warning: upstream ${flags.upstream} did not answer PING like Redis (${r.notRedis})`);
  });
  await stopped;
  await endSession(proxy, record, flags.statsJson);
}

/** The entries of `o` (only `keys`, when given) that are not undefined: they then override, absent ones do not. */
function definedOnly<T extends object>(o: T, keys?: readonly string[]): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => v !== undefined && (!keys || keys.includes(k)))) as Partial<T>;
}
