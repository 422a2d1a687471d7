import type http from 'node:http';
import { ConfigError } from '../errors.js';
import { HttpEndpoint } from '../http/endpoint.js';
import { BodyError, HttpError, readJsonObject, sendJson } from '../http/json.js';
import { queryParam, Router, routesHint, type Handler, type Route } from '../http/router.js';
import type { LinkUpdate } from '../link/types.js';
import type { ConnectionInfo, StatsSnapshot } from '../stats/types.js';
import { ToxicExistsError, type ToxicControl } from '../toxics/toxic-set.js';
import { toxicRoutes } from './control-toxics.js';
import type { Endpoint } from '../endpoint.js';
import { LINK_UPDATE } from '../link/settings.js';
import { PRESET_NAMES } from '../link/presets.js';
import type { LatencyHistogram } from '../numbers/histogram.js';
import { TOXIC_TYPES } from '../toxics/registry.js';
import { EventStreams } from '../dashboard/event-streams.js';
import { dashboardRoutes } from '../dashboard/routes.js';

export interface ControlHandlers {
  stats(): StatsSnapshot;
  /** GET /stats?node=SELECTOR: the chosen nodes' own snapshots (cluster mode); a single-node proxy refuses it (400). */
  statsOf(node: string): object;
  /** The live per-command histograms the dashboard's window reads (RedisRttProxy.commandLatencyUs). */
  commandLatencyUs(): Iterable<readonly [string, LatencyHistogram]>;
  metrics(): string;
  /** `node` is PUT /link?node=SELECTOR (cluster mode); a single-node proxy refuses it (400). */
  setLink(update: LinkUpdate & { preset?: string }, node?: string): LinkReply;
  /** GET /link?node=SELECTOR: the chosen nodes' links (cluster mode); a single-node proxy refuses it (400). */
  linkOf(node: string): object;
  reset(): void;
  connections(): ConnectionInfo[];
  /** The proxy's toxics (GET/POST /toxics, PATCH/DELETE /toxics/{name}, toxiproxy's JSON); a cluster's go on every node. */
  toxics?: ToxicControl;
}

/**
 * What PUT /link answers: the link(s) after the change, and the warnings the flags would have
 * logged at start for them (jitterFloorWarning), so a change over HTTP is not silently worse.
 */
export interface LinkReply {
  link: object;
  warnings: string[];
}

/** A control request body is a few fields; anything near this is not one. */
export const CONTROL_BODY_LIMIT_BYTES = 64 * 1024;
/** The keys PUT /link accepts: the link schema's own; the endpoint names every unknown one at once. */
const LINK_KEYS = new Set(Object.keys(LINK_UPDATE.shape));

/**
 * The HTTP control endpoint: GET /stats, GET /metrics, GET /connections, PUT /link, POST /reset,
 * and the live dashboard (GET /, its events on GET /events; src/dashboard). Errors are JSON
 * `{"error": "..."}` with a 4xx status; nothing here can take the proxy down.
 */
export class ControlServer {
  private readonly endpoint: HttpEndpoint;
  /** The dashboard's streams: idle (no timer, no window) while no page is open. */
  readonly streams: EventStreams;

  constructor(
    handlers: ControlHandlers,
    access: { token?: string; allowHosts?: readonly string[] } = {},
    private readonly log: (line: string) => void = () => undefined,
  ) {
    const toxics = handlers.toxics;
    this.streams = new EventStreams(
      { stats: () => handlers.stats(), commandLatency: () => handlers.commandLatencyUs(), toxics: toxics && (() => toxics.list()) },
      { log },
    );
    const page = {
      title: 'redis-rtt proxy',
      events: '/events',
      link: '/link',
      toxics: toxics ? '/toxics' : null,
      presets: PRESET_NAMES,
      toxicTypes: [...TOXIC_TYPES.keys()],
    };
    this.endpoint = new HttpEndpoint({
      router: routerOf([...dashboardRoutes({ page: '/' }, page, this.streams), ...controlRoutes({ ...handlers, reset: () => this.reset(handlers) })]),
      flag: '--control',
      access,
      classify: classifyControlError,
      errorBody: (_status, reason) => ({ error: reason }),
      tokenPages: ['/'],
    });
  }

  /** POST /reset: the counters, then the dashboard's window, which counts from the reset on. */
  private reset(handlers: ControlHandlers): void {
    handlers.reset();
    this.streams.countersReset();
  }

  /** "host:port" (or the socket path) once listening. */
  get address(): string {
    return this.endpoint.address;
  }

  listen(at: Endpoint): Promise<void> {
    return this.endpoint.listen(at, this.log);
  }

  close(): Promise<void> {
    this.streams.close();
    return this.endpoint.close();
  }
}

function controlRoutes(h: ControlHandlers): Route[] {
  const setLink = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const body = await readJsonObject(req, CONTROL_BODY_LIMIT_BYTES);
    const unknown = Object.keys(body).filter((k) => !LINK_KEYS.has(k));
    if (unknown.length > 0) throw new HttpError(400, `unknown field(s) ${unknown.join(', ')}; accepted: ${[...LINK_KEYS].join(', ')}`);
    const node = nodeParam(req);
    const { link, warnings } = h.setLink(body as LinkUpdate, node);
    // A partition is no field of the link: the answer says it holds, as /stats does (a cluster's
    // nodes each have their own, in /stats cluster.nodes[]).
    const partition = 'partition' in body && node === undefined ? h.stats().partition : undefined;
    sendJson(res, 200, { ...link, warnings, ...(partition ? { partition } : {}) });
  };
  // With ?node= the nodes it picks, as PUT answers them: without it a cluster's GET showed the
  // seed's link whatever the selector said.
  const getLink = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const node = nodeParam(req);
    sendJson(res, 200, node === undefined ? h.stats().link : h.linkOf(node));
  };
  // As GET /link: with ?node= the chosen nodes' own snapshots (the selector was ignored, the whole
  // cluster's answered).
  const getStats = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const node = nodeParam(req);
    sendJson(res, 200, node === undefined ? h.stats() : h.statsOf(node));
  };
  return [
    { path: '/stats', methods: { GET: getStats } },
    { path: '/connections', methods: { GET: noNode('GET /connections', (_req, res) => sendJson(res, 200, { connections: h.connections() })) } },
    {
      path: '/metrics',
      methods: {
        GET: noNode('GET /metrics', (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
          res.end(h.metrics());
        }),
      },
    },
    { path: '/link', methods: { GET: getLink, PUT: setLink, POST: setLink } },
    {
      path: '/reset',
      methods: {
        POST: noNode('POST /reset', (_req, res) => {
          h.reset();
          sendJson(res, 200, { reset: true });
        }),
      },
    },
    ...(h.toxics ? toxicRoutes(h.toxics, CONTROL_BODY_LIMIT_BYTES) : []),
  ];
}

/** `?node=SELECTOR` of a /link or /stats request; undefined when the query has none. */
function nodeParam(req: http.IncomingMessage): string | undefined {
  return queryParam(req, 'node');
}

/**
 * A route that is always the whole proxy's: a ?node= there is refused, not ignored (POST
 * /reset?node=X zeroed every node's counters, /metrics?node=X answered every node's).
 */
function noNode(route: string, handler: Handler): Handler {
  return (req, res, params) => {
    if (nodeParam(req) !== undefined) throw new HttpError(400, `?node= is not taken by ${route}; it picks nodes on GET /stats and GET or PUT /link`);
    return handler(req, res, params);
  };
}

/** The control endpoint's wording: bad input 400 (naming what is accepted), a toxic's name taken 409, else 500. */
function classifyControlError(err: unknown): { status: number; reason: string } {
  if (err instanceof BodyError) {
    if (err.reason === 'empty' || err.reason === 'not-json') return { status: 400, reason: 'body is not valid JSON' };
    if (err.reason === 'not-object') return { status: 400, reason: 'body must be a JSON object' };
  }
  if (err instanceof HttpError) return { status: err.status, reason: err.message };
  if (err instanceof ToxicExistsError) return { status: 409, reason: err.message };
  if (err instanceof ConfigError) return { status: 400, reason: err.message };
  return { status: 500, reason: String(err) };
}

/** The endpoint's router: its 404 names every endpoint the routes answer (the dashboard's, /toxics' when served). */
function routerOf(routes: readonly Route[]): Router {
  return new Router(routes, routesHint(routes));
}
