import type { z } from 'zod';
import type { ToxicSpec } from '../toxics/types.js';
import { parseWith } from '../validation/schema.js';
import { parseToxicSpec } from '../toxics/spec.js';
import { ConfigError } from '../errors.js';
import { parseEndpoint, parseRedisEndpoint, type Endpoint } from '../endpoint.js';
import { planControl, type ControlPlan } from './start-control.js';
import { optionFlag, PROXY_OPTIONS } from './options-schema.js';
import type { ProxyHooks, ProxyOptions } from './types.js';
import { parseRttWave } from '../link/wave.js';
import { parseLinkSchedule } from '../link/schedule.js';
import { parseRttSeries } from '../link/rtt-series.js';
import type { LinkTimelineOptions } from './link-timeline.js';
import { applyLinkUpdate, defaultLinkSettings } from '../link/settings.js';
import type { LinkSettings } from '../link/types.js';
import { checkUpstreamTlsOverTcp } from '../tls/setup.js';

/** Every option of startProxy, validated, with defaults filled in and addresses parsed. */
export interface NormalizedProxyOptions
  extends Omit<z.output<typeof PROXY_OPTIONS>, 'upstream' | 'listen' | 'control' | 'toxics' | 'rttWave' | 'linkSchedule' | 'rttSeries' | 'rttSeriesOnce'>,
    ProxyHooks {
  upstream: Endpoint;
  listen: Endpoint;
  /** --control's address, access and bind warning; undefined without --control. */
  control?: ControlPlan;
  toxics?: ToxicSpec[];
  /** A link that moves over time (wave, schedule, series), parsed. */
  timeline: LinkTimelineOptions;
  log: (line: string) => void;
}

const stderrLog = (line: string): void => void process.stderr.write(`redis-rtt: ${line}\n`);

/**
 * Checks every option of startProxy before anything is built: the options' schema
 * (src/proxy/options-schema.ts), then the addresses, the control endpoint's bind policy and each
 * toxic. Pure (no I/O); TLS files are read by prepareProxyTls. A ConfigError names the CLI flag,
 * or the key (`link.rttUs`; a toxic's field as toxiproxy names it: `attributes.latency`), and what it accepts.
 */
export function normalizeProxyOptions(options: ProxyOptions): NormalizedProxyOptions {
  if (typeof options !== 'object' || options === null || typeof options.upstream !== 'string') {
    throw new ConfigError('upstream', options?.upstream, 'host:port or unix:/path of the Redis to proxy');
  }
  // Named as the toxiproxy API names them (`attributes.latency`), whichever toxic of the list it is;
  // unknown keys refused, as the schema's TOXIC refuses them.
  // Not an array: left to the schema, whose ConfigError names `toxics` (a string threw a TypeError).
  const toxics = Array.isArray(options.toxics) ? options.toxics.map((t) => parseToxicSpec(t, 'refuse')) : options.toxics;
  const data = parseWith(PROXY_OPTIONS, { ...options, toxics }, optionFlag);
  // AUTH needs a password: without one the user would be ignored without a word (discovery would not log in).
  if (data.upstreamUser !== undefined && data.upstreamPassword === undefined) {
    throw new ConfigError('--upstream-user', data.upstreamUser, 'a password with it (REDIS_RTT_UPSTREAM_PASSWORD, or upstreamPassword in a config file or the API)');
  }
  const startLink = checkLinkTogether(data.link);
  const { rttWave, linkSchedule, rttSeries, rttSeriesOnce, ...rest } = data;
  // As the flag is refused without --rtt-series: the key alone (a config file's, the library's) ran without a word.
  if (rttSeriesOnce && rttSeries === undefined) throw new ConfigError('--rtt-series-once', true, 'only with a series to replay (--rtt-series, rttSeries)');
  // The sizes come from the tap's framing: without it they were asked for and never collected.
  if (rest.argSizes && !rest.tap) throw new ConfigError('argSizes', true, 'only with the tap on (tap: false parses no request to size)');
  const timeline: LinkTimelineOptions = {
    wave: rttWave === undefined ? undefined : parseRttWave(rttWave),
    // Over the start link: a step's burst too short for the loss the flags give is refused now.
    schedule: linkSchedule === undefined ? undefined : parseLinkSchedule(linkSchedule, undefined, startLink),
    series: rttSeries === undefined ? undefined : parseRttSeries(rttSeries),
    seriesOnce: rttSeriesOnce,
  };
  const upstream = parseRedisEndpoint(data.upstream, '--upstream');
  // Here, not only when the TLS is set up: --print-config (which sets up nothing) exits 2 as the start does.
  checkUpstreamTlsOverTcp(data.upstreamTls, upstream);
  return {
    ...rest,
    timeline,
    upstream,
    listen: parseEndpoint(data.listen, '--listen'),
    control: planControl(data),
    toxics: data.toxics,
    log: options.log ?? stderrLog,
    onEvent: options.onEvent,
    keyHash: options.keyHash,
    onLinkChange: options.onLinkChange,
    stages: options.stages,
    scheduler: options.scheduler,
    onNodeLinkChange: options.onNodeLinkChange,
  };
}

/**
 * What the link's keys say together (a burst too short for its loss; settings.ts), checked before
 * anything starts and named as the schema names a key (`link.lossBurst`), not found at the start.
 * Returns the link they give, which a schedule's steps start from.
 */
function checkLinkTogether(link: NormalizedProxyOptions['link']): LinkSettings {
  if (link === undefined) return defaultLinkSettings();
  const { partition: _partition, then: _then, ...settings } = link;
  try {
    return applyLinkUpdate(defaultLinkSettings(), settings);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`link.${err.flag}`, err.value, err.accepts);
    throw err;
  }
}
