import { readFile } from 'node:fs/promises';
import { parseEndpoint } from '../endpoint.js';
import { ConfigError } from '../errors.js';
import { keysOf, refuseUnknownKeys } from '../validation/known-keys.js';
import { parseJsonText } from '../validation/json-text.js';
import { parseWith } from '../validation/schema.js';
import { PROXY_OPTIONS } from '../proxy/options-schema.js';
import { HttpEndpoint } from '../http/endpoint.js';
import { bindPolicy } from '../http/guard.js';
import { Router } from '../http/router.js';
import { seededUniform, randomSeed } from '../link/rng.js';
import { sharedScheduler } from '../link/shared-scheduler.js';
import { ApiError, PopulateError, sendApiError, toApiError } from './api-error.js';
import { DEFAULT_API } from './cli-values.js';
import { ProxyCollection } from './collection.js';
import { apiRoutes } from './routes.js';
import { ServerUi, UI_PATH } from './ui.js';

export interface ToxiproxyServerOptions {
  /** Where the HTTP API listens. @default "127.0.0.1:8474" */
  api?: string;
  /** When set, requests must carry `Authorization: Bearer <token>` (toxiproxy's clients cannot: keep it optional). */
  apiToken?: string;
  /** Extra Host names the API answers to (`toxiproxy:8474` from a container): `name` or `name:port`. */
  allowHosts?: readonly string[];
  /** Proxies to create at start: the JSON array POST /populate takes. */
  config?: unknown;
  /** Where `config` was read from, for its errors. */
  configPath?: string;
  /** Seed for toxicity rolls and jitter. @default random */
  seed?: number;
  log?: (line: string) => void;
}

export interface ToxiproxyServer {
  /** "host:port" the API is bound to. */
  readonly api: string;
  readonly proxies: ProxyCollection;
  close(): Promise<void>;
  /** close(), for `await using server = await startToxiproxyServer()`. */
  [Symbol.asyncDispose](): Promise<void>;
}

export { DEFAULT_API };

const SERVER_OPTION_KEYS = keysOf<ToxiproxyServerOptions>()({
  api: true, apiToken: true, allowHosts: true, config: true, configPath: true, seed: true, log: true,
});

/**
 * `redis-rtt server`: toxiproxy's v2 HTTP API in front of redis-rtt proxies. Each proxy is a full
 * redis-rtt proxy; each toxic a stage of its chain.
 */
export async function startToxiproxyServer(o: ToxiproxyServerOptions = {}): Promise<ToxiproxyServer> {
  refuseUnknownKeys(o, SERVER_OPTION_KEYS, 'startToxiproxyServer()');
  // As startProxy's controlToken and allowHosts (one schema): a JavaScript caller's `allowHosts: 'toxiproxy'`
  // or `apiToken: 5` threw a TypeError from inside; an empty token would count as one (a 0.0.0.0 bind
  // allowed) and match no request: every call a 401.
  parseWith(PROXY_OPTIONS.shape.controlToken, o.apiToken, () => '--api-token');
  parseWith(PROXY_OPTIONS.shape.allowHosts, o.allowHosts, () => '--allow-host');
  if (o.log !== undefined && typeof o.log !== 'function') throw new ConfigError('log', o.log, 'a function of one line of text');
  // As --seed takes it: -1 or 0.5 made rolls that no run could repeat from the number given.
  if (o.seed !== undefined && !(Number.isSafeInteger(o.seed) && o.seed >= 0)) throw new ConfigError('--seed', o.seed, 'a whole number of 0 or more');
  const at = parseEndpoint(o.api ?? DEFAULT_API, '--api');
  if (at.kind !== 'tcp') throw new ConfigError('--api', o.api, 'host:port (toxiproxy clients speak HTTP over TCP)');
  const log = o.log ?? ((line: string) => process.stderr.write(`redis-rtt server: ${line}\n`));
  // Refuses a wildcard bind with neither --allow-host nor a token; a warning for any non-loopback bind.
  const bindWarning = bindPolicy({ bound: at, allowHosts: o.allowHosts, token: o.apiToken }, '--api', '--api-token (or REDIS_RTT_API_TOKEN)');
  const scheduler = sharedScheduler();
  const proxies = new ProxyCollection({ scheduler, uniform: seededUniform(o.seed ?? randomSeed()) }, log);
  const ui = new ServerUi(proxies, log);
  const endpoint = new HttpEndpoint({
    router: new Router([...ui.routes(), ...apiRoutes(proxies)]),
    flag: '--api',
    access: { token: o.apiToken, allowHosts: o.allowHosts },
    classify: (err) => {
      const e = toApiError(err);
      return { status: e.status, reason: e.message };
    },
    errorBody: (status, reason) => new ApiError(reason, status).toJSON(),
    writeError: sendApiError,
    tokenPages: [UI_PATH],
  });
  await endpoint.listen(at);
  if (bindWarning) log(`warning: ${bindWarning.replace('control endpoint', 'API')}`);
  const close = async (): Promise<void> => {
    ui.close();
    await endpoint.close();
    await proxies.close();
  };
  if (o.config !== undefined) {
    try {
      await proxies.serial(() => proxies.populate(o.config));
    } catch (err) {
      await close();
      throw new ConfigError('--config', o.configPath ?? '(given)', `toxiproxy's populate JSON: ${populateFailure(err, o.config)}`);
    }
  }
  return { api: endpoint.address, proxies, close, [Symbol.asyncDispose]: close };
}

/**
 * Why the populate at start failed. An entry that does not parse is named by it (" at proxy 2"); one
 * whose proxy could not start (an address in use, an upstream that is no address) was not: which of
 * the file's proxies it was is said here ("proxy 2 (redis): listen 127.0.0.1:26379: address already in use").
 */
function populateFailure(err: unknown, config: unknown): string {
  const message = toApiError(err).message;
  if (!(err instanceof PopulateError) || !Array.isArray(config)) return message;
  // The proxies made or kept before it, one per entry in order: the failed one is the next.
  const at = err.proxies.length;
  const name = (config[at] as { name?: unknown } | undefined)?.name;
  return `proxy ${at + 1}${typeof name === 'string' ? ` (${name})` : ''}: ${message}`;
}

/** Reads a --config file (toxiproxy's populate JSON). */
export async function readConfigFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError('--config', path, `a readable file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    // A key given twice counts as the last, as toxiproxy's own -config reads it.
    return parseJsonText(text, 'last');
  } catch (err) {
    throw new ConfigError('--config', path, `a JSON array of proxies (${(err as Error).message})`);
  }
}
