import { z } from 'zod';
import { COMPENSATION } from '../link/compensation.js';
import { LINK_SCHEDULE } from '../link/schedule.js';
import { LINK_UPDATE } from '../link/settings.js';
import { LOSS_FRACTION, LOSS_TEXT_PATTERN } from '../units.js';
import { MAX_TIMER_MS } from '../validation/known-keys.js';
import { keyPath, wholeNumber, type FlagOf } from '../validation/schema.js';
import { LISTEN_TLS, UPSTREAM_TLS } from '../tls/options.js';
import { STREAM, STREAM_PATTERN, TOXIC } from '../toxics/spec.js';
import { CLUSTER_OPTIONS } from './cluster-options.js';

export const DEFAULT_HIGH_WATER_BYTES = 4 * 1024 * 1024;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

const CONNECT_TIMEOUT_ACCEPTS = `milliseconds, from 1 to ${MAX_TIMER_MS} (Node's timer limit)`;

const address = (accepts: string, what: string) => z.string({ error: accepts }).describe(what);

/**
 * startProxy's options that are data (the hooks, functions and objects, are ProxyHooks in
 * types.ts): the one definition of their keys, types, defaults and what each accepts. The
 * ProxyOptions type, normalizeProxyOptions' ConfigErrors and docs/proxy-options.schema.json
 * (`npm run schema`) all come from it.
 */
export const PROXY_OPTIONS = z.object(
  {
    upstream: address('host:port or unix:/path of the Redis to proxy', 'Where Redis is: "host:port" or "unix:/path/to.sock".'),
    listen: address('host:port or a unix socket path', 'Where to listen: "host:port" (port 0 = any free port) or a unix socket path.').default(
      '127.0.0.1:0',
    ),
    control: address('host:port or a unix socket path', 'Start the HTTP control endpoint here ("127.0.0.1:0" for any free port).').optional(),
    controlToken: z
      // An empty token would count as one (a 0.0.0.0 bind allowed) and match no request.
      .string({ error: 'a string' })
      .min(1, { error: 'a non-empty token' })
      .describe('When set, control requests must carry `Authorization: Bearer <token>` (compared in constant time).')
      .optional(),
    allowHosts: z
      .array(z.string({ error: 'host names' }), { error: 'an array of host names' })
      .describe(
        'Host names the control endpoint accepts besides its bound address and localhost / 127.0.0.1 / [::1] with its port: ' +
          '`name` (any port) or `name:port`. Bound to 0.0.0.0 or ::, this or a controlToken is required (docs/SECURITY.md).',
      )
      .optional(),
    link: LINK_UPDATE
      // As PUT /link and a schedule step refuse it: a `then` alone would start nothing, silently.
      .refine((l) => l.then === undefined || l.partition !== undefined, { message: 'then only with partition', path: ['then'] })
      .describe('Initial link: a preset name and/or explicit settings (explicit ones win). Default: no delay.')
      .optional(),
    rttWave: z
      .string({ error: 'SHAPE:PERIOD:AMPLITUDE (e.g. sine:60s:20ms)' })
      .describe('Move the RTT in a wave around the link\'s: sine|square|triangle|sawtooth:PERIOD:AMPLITUDE (docs/link-over-time.md).')
      .optional(),
    linkSchedule: z
      .unknown()
      .describe('Link changes and partitions at set times from the start: a list of { at, link?, ramp?, partition?, then? }, or { loop, period?, steps }.')
      .optional(),
    rttSeries: z
      .string({ error: 'the text of a seconds,rtt_ms CSV or of ping -D output' })
      .describe('Replay a measured RTT: the text of a CSV of seconds,rtt_ms, or of `ping -D` output; each value holds until the next, looping at the end.')
      .optional(),
    rttSeriesOnce: z.boolean({ error: 'true or false' }).describe('At the end of rttSeries keep its last value instead of starting over.').default(false),
    seed: wholeNumber(0, Number.MAX_SAFE_INTEGER).describe('Seed for jitter, so a run can be repeated exactly. Default: random.').optional(),
    handshake: z.boolean({ error: 'true or false' }).describe('Connection set-up costs one RTT, like a TCP handshake.').default(true),
    highWaterBytes: z
      .number({ error: 'a byte count of at least 1024' })
      .min(1024)
      .describe("Bytes held in one direction's delay line before the proxy stops reading from that direction's source; resumes below half.")
      .default(DEFAULT_HIGH_WATER_BYTES),
    tap: z.boolean({ error: 'true or false' }).describe('Parse RESP on the side and count commands. Off = a plain delaying byte pipe.').default(true),
    maxPendingPerConnection: wholeNumber(1)
      .describe(
        "Unfinished requests one connection's tap may hold (docs/SECURITY.md says what each costs). Past it, or past maxPendingTotal, that connection's " +
          'tap stops timing (commands still counted, bytes untouched) and /stats says so. Default 65536.',
      )
      .optional(),
    maxPendingTotal: wholeNumber(1).describe("Unfinished requests all connections' taps may hold together. Default 262144.").optional(),
    // Node's timer limit: a longer one is cut to it, with a TimeoutOverflowWarning per connection.
    idleTimeoutMs: wholeNumber(0, MAX_TIMER_MS, 'off')
      .describe('Close a connection when its client socket has seen no bytes either way for this long, no request awaits a reply and it is not subscribed or monitoring. 0 = never.')
      .default(0),
    maxConnections: wholeNumber(0, Number.MAX_SAFE_INTEGER, 'no limit')
      .describe('Close new clients at once while this many connections are live. 0 = no limit.')
      .default(0),
    warmUpConnections: wholeNumber(0, 100_000, 'none')
      .describe(
        'Connections the proxy makes through its own listener at start (one PING each, then counters zeroed), so the first ' +
          "clients do not wait for V8 to compile the set-up path (docs/precision.md). Redis sees them. 0 = none.",
      )
      .default(0),
    argSizes: z.boolean({ error: 'true or false' }).describe("Collect every request argument's size (for --record).").default(false),
    compensationUs: COMPENSATION.describe(
      "Microseconds taken off each one-way delay to pay for the proxy's own hop: a constant per direction, or `{ table }` from " +
        '`redis-rtt calibrate`. Default: the hop, measured at start (docs/precision.md).',
    ).optional(),
    // Above 0 and within Node's timer limit: 0, a fraction under 1 ms or a longer one (set to 1 ms)
    // fired before any Redis could answer, so the proxy closed every client it accepted.
    connectTimeoutMs: z
      .number({ error: CONNECT_TIMEOUT_ACCEPTS })
      .min(1, { error: CONNECT_TIMEOUT_ACCEPTS })
      .max(MAX_TIMER_MS, { error: CONNECT_TIMEOUT_ACCEPTS })
      .describe('How long to wait for Redis to accept a connection before closing the client.')
      .default(DEFAULT_CONNECT_TIMEOUT_MS),
    upstreamTls: z
      .union([z.boolean(), UPSTREAM_TLS], { error: 'true, false, or an object of ca, servername, cert, key, insecure' })
      .describe("Speak TLS to Redis (docs/tls.md): true verifies against Node's bundled roots; files are read and checked at start.")
      .optional(),
    listenTls: z
      .union([z.boolean(), LISTEN_TLS], { error: 'true, false, or an object of cert, key, ca, maxVersion' })
      .describe('Serve TLS to clients, terminated behind the link (docs/tls.md). true generates a throwaway pair; its CA is `tlsCaFile`.')
      .optional(),
    toxics: z
      .array(TOXIC, { error: 'an array of toxics' })
      .describe(
        "toxiproxy toxics and Redis-aware ones, as toxiproxy's API takes them, after `stages`. When given (even []) every connection " +
          'is framed, so Redis-aware toxics added later reach all of them.',
      )
      .optional(),
    ...CLUSTER_OPTIONS,
  },
  { error: 'an object of proxy options with at least { upstream }' },
);

/** The CLI flag of each option that has one: a ConfigError names what the user typed. */
const FLAGS: Record<string, string> = {
  upstream: '--upstream',
  listen: '--listen',
  control: '--control',
  controlToken: '--control-token',
  seed: '--seed',
  rttWave: '--rtt-wave',
  linkSchedule: '--link-schedule',
  rttSeries: '--rtt-series',
  rttSeriesOnce: '--rtt-series-once',
  highWaterBytes: '--high-water',
  maxPendingPerConnection: '--max-pending',
  maxPendingTotal: '--max-pending-total',
  idleTimeoutMs: '--idle-timeout',
  maxConnections: '--max-connections',
  connectTimeoutMs: '--connect-timeout',
  warmUpConnections: '--warm-up',
  cluster: '--cluster',
  announceHost: '--announce-host',
  upstreamUser: '--upstream-user',
  listenPorts: '--listen-ports',
  zones: '--zones',
  clientZones: '--client-zones',
};

/** `--high-water` for a top-level option with a flag, else the key path (`link.rttUs`, `toxics[0].type`). */
export const optionFlag: FlagOf = (path) => (path.length === 1 && FLAGS[String(path[0])]) || keyPath()(path) || 'options';

/**
 * docs/proxy-options.schema.json: the options a config file can hold (`redis-rtt proxy --config`
 * passes its own schema: these plus `record`), as JSON Schema (draft 2020-12). `linkSchedule` is
 * checked by parseLinkSchedule, which names a step's field as its flag does; the schema shows its
 * shape, so an editor checks a schedule too.
 */
export function proxyOptionsJsonSchema(schema: z.ZodObject = PROXY_OPTIONS): Record<string, unknown> {
  const linkSchedule = LINK_SCHEDULE.describe(PROXY_OPTIONS.shape.linkSchedule.unwrap().description ?? '').optional();
  return {
    ...z.toJSONSchema(schema.extend({ linkSchedule }), {
      io: 'input',
      target: 'draft-2020-12',
      override: (ctx) => {
        acceptLossText(ctx);
        acceptStreamInAnyCase(ctx);
      },
    }),
    title: 'redis-rtt proxy options',
    description:
      'The data options of startProxy(), and what `redis-rtt proxy --config FILE` reads (generated from src/proxy/options-schema.ts and ' +
      'src/cli/proxy-config.ts by `npm run schema`).',
  };
}

/**
 * A preprocess shows only what it makes, so an editor would flag the `"1%"` the loss keys take
 * (LOSS_FRACTION): the loss keys are a number in [0, 1) or that text.
 */
function acceptLossText(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const def = ctx.zodSchema._zod.def;
  // `.describe()` clones the schema with the same definition: its input step is LOSS_FRACTION's own.
  if (def.type !== 'pipe' || def.in !== (LOSS_FRACTION._zod.def as { in: unknown }).in) return;
  const { description, ...number } = ctx.jsonSchema;
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, { ...(description === undefined ? {} : { description }), anyOf: [number, { type: 'string', pattern: LOSS_TEXT_PATTERN }] });
}

/**
 * A toxic's `stream` is read in any case (toxiproxy lower-cases it), but a preprocess shows only
 * its lower-case enum, so an editor would flag the `"UPSTREAM"` the loader takes: a case-blind pattern.
 */
function acceptStreamInAnyCase(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const def = ctx.zodSchema._zod.def;
  if (def.type !== 'pipe' || def.in !== (STREAM._zod.def as { in: unknown }).in) return;
  for (const key of ['enum', 'const', 'format']) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, { type: 'string', pattern: STREAM_PATTERN });
}
