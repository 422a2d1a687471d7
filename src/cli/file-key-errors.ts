/**
 * A config file's values are checked at start under the flags they were folded into
 * (proxy-config.ts): an error there is re-said under the file's key the user wrote.
 */
import { ConfigError, ListenError, NetworkError } from '../errors.js';

/**
 * Flags whose start-time checks are re-said under the file's key, by the attribute mergeProxyConfig
 * records a file's value under: sentinel mode's, cluster mode's (`zones`, `listenPorts`), the
 * upstream's user, the outputs (`record.file`, `statsJson`), and the addresses and TLS sides the
 * start reads against each other (a unix `listen` in cluster mode, a `control` on 0.0.0.0 without a
 * token, `upstreamTls` to a unix socket, a `controlToken` or `allowHosts` with no `control`).
 */
const FILE_KEY_FLAG_ATTRS: Record<string, string> = {
  '--upstream': 'upstream',
  '--listen': 'listen',
  '--control': 'control',
  '--control-token': 'controlToken',
  '--allow-host': 'allowHost',
  '--upstream-tls': 'upstreamTls',
  '--listen-tls': 'listenTls',
  '--rtt-series-once': 'rttSeriesOnce',
  '--sentinel': 'sentinel',
  '--sentinel-master': 'sentinelMaster',
  '--sentinel-user': 'sentinelUser',
  '--stats-json': 'statsJson',
  '--record': 'record',
  '--record-max-bytes': 'recordMaxBytes',
  '--record-keys': 'recordKeys',
  '--record-overwrite': 'recordOverwrite',
  '--cluster': 'cluster',
  '--zones': 'zones',
  '--client-zones': 'clientZones',
  '--listen-ports': 'listenPorts',
  '--node-link': 'nodeLink',
  '--announce-host': 'announceHost',
  '--same-zone-link': 'sameZoneLink',
  '--cross-zone-link': 'crossZoneLink',
  '--upstream-user': 'upstreamUser',
};

/**
 * A ConfigError naming a flag whose value came from the config file, re-said under the file's key
 * (`proxy.json: sentinelMaster`, `proxy.json: record.file`): the start's checks (no sentinel
 * answers, an unknown master, a user without a password, a trace that cannot be written) name the
 * flag, and the user typed none. As sentinelFromFlags names the file's sentinelMaster and
 * sentinelUser without sentinels.
 */
export function withFileKey(
  err: unknown,
  flags: { config?: string; fileKeys?: Readonly<Record<string, string>>; linkSchedule?: string | boolean; lossBurst?: string },
): unknown {
  if (err instanceof NetworkError) return withFileAddressKey(err, flags);
  if (!(err instanceof ConfigError) || err.constructor !== ConfigError) return err;
  // The start checks a schedule's steps over the link the flags and the file give (schedule.ts): one the
  // file gave (no --link-schedule typed) is named by its key, as the file's own check names it.
  if (err.flag.startsWith('--link-schedule ') && flags.config !== undefined && typeof flags.linkSchedule !== 'string') {
    return new ConfigError(`${flags.config}: linkSchedule${err.flag.slice('--link-schedule'.length)}`, err.value, err.accepts);
  }
  // The file's link and the link flags merged are checked together at start (a burst too short for the
  // loss): named by the burst's source, --loss-burst typed or the file's link.lossBurst, not a bare `link.lossBurst`.
  if (err.flag === 'link.lossBurst' && flags.config !== undefined) {
    if (flags.lossBurst !== undefined) return new ConfigError('--loss-burst', flags.lossBurst, err.accepts);
    return new ConfigError(`${flags.config}: link.lossBurst`, err.value, err.accepts);
  }
  const attr = FILE_KEY_FLAG_ATTRS[err.flag];
  const key = attr === undefined ? undefined : flags.fileKeys?.[attr];
  if (key === undefined) return err;
  // The way out of an existing trace is the file's record.overwrite when the file named the trace.
  const accepts = key === 'record.file' ? err.accepts.replace('add --record-overwrite', 'set record.overwrite to true') : err.accepts;
  return new ConfigError(`${flags.config ?? 'config'}: ${key}`, err.value, accepts);
}

/** Flags whose address a listener binds at start, by the attribute mergeProxyConfig records a file's value under. */
const FILE_ADDRESS_FLAG_ATTRS: Record<string, string> = { '--listen': 'listen', '--control': 'control', '--listen-ports': 'listenPorts' };

/**
 * A bind that failed (`--listen 127.0.0.1:6380: address already in use`, listenOn's message, or
 * several joined by `; ` in cluster mode) for an address the config file gave: said under the file's
 * key, its code kept (EADDRINUSE exits 2, main.ts).
 */
function withFileAddressKey(err: NetworkError, flags: { config?: string; fileKeys?: Readonly<Record<string, string>> }): NetworkError {
  let message = err.message;
  for (const [flag, attr] of Object.entries(FILE_ADDRESS_FLAG_ATTRS)) {
    const key = flags.fileKeys?.[attr];
    if (key !== undefined) message = message.replace(new RegExp(`(^|; )${flag} `, 'g'), `$1${flags.config ?? 'config'}: ${key} `);
  }
  if (message === err.message) return err;
  // The class kept: a bind refused for its address exits 2 (main.ts).
  return err instanceof ListenError ? new ListenError(message, err.code) : new NetworkError(message, err.code);
}
