/**
 * `redis-rtt server`'s dashboard: GET /ui?proxy=NAME is the control endpoint's page for one of its
 * proxies (its toxics through this API's /proxies/NAME/toxics, read only for a proxy named . or ..;
 * no link controls, toxiproxy's API has no link), GET /ui alone lists the proxies. Each proxy gets its own event streams, made when
 * its first page connects; like the control endpoint's they do nothing while no page is open.
 */
import type http from 'node:http';
import { EventStreams } from '../dashboard/event-streams.js';
import { dashboardPage, NO_ICON } from '../dashboard/page.js';
import { sendPage } from '../dashboard/routes.js';
import { HttpError } from '../http/json.js';
import { queryParam, type Route } from '../http/router.js';
import { TOXIC_TYPES } from '../toxics/registry.js';
import { esc } from '../svg/escape.js';
import type { ProxyCollection } from './collection.js';
import type { ManagedProxy } from './managed-proxy.js';

export const UI_PATH = '/ui';

/** Path segments a browser resolves away before it sends a request, percent-encoded too. */
const DOT_SEGMENTS: ReadonlySet<string> = new Set(['.', '..']);

export class ServerUi {
  /** By proxy, not by name: a name deleted and made again (or replaced by POST /populate) is another proxy. */
  private readonly streams = new Map<ManagedProxy, EventStreams>();

  constructor(
    private readonly proxies: ProxyCollection,
    private readonly log: (line: string) => void,
  ) {
    // The pages of a proxy that is gone lose their stream and ask again: a 404 until the name is made
    // again, then that proxy's. Kept, they showed the deleted proxy's last stats and toxics for good.
    proxies.onRemoved((p) => {
      this.streams.get(p)?.close();
      this.streams.delete(p);
    });
  }

  routes(): Route[] {
    return [
      { path: UI_PATH, methods: { GET: (req, res) => this.page(req, res) } },
      { path: `${UI_PATH}/events`, methods: { GET: (req, res) => this.events(req, res) } },
    ];
  }

  /** Ends every open stream (the server is closing). */
  close(): void {
    for (const s of this.streams.values()) s.close();
    this.streams.clear();
  }

  private page(req: http.IncomingMessage, res: http.ServerResponse): void {
    const name = proxyParam(req);
    const all = this.proxies.list();
    const chosen = name ?? (all.length === 1 ? all[0]!.name : undefined);
    if (chosen === undefined) return sendPage(res, listPage(all.map((p) => p.name)));
    this.proxies.get(chosen); // 404 for a proxy that does not exist
    const q = encodeURIComponent(chosen);
    sendPage(
      res,
      dashboardPage({
        title: `redis-rtt server: ${chosen}`,
        events: `${UI_PATH}/events?proxy=${q}`,
        link: null,
        // The browser would send /proxies/./toxics as /proxies/toxics (another proxy's path: the add
        // would be taken as its update, a Remove would delete it) and /proxies/../toxics as /toxics,
        // so such a proxy's toxics are shown read only. toxiproxy serves no path of it at all:
        // gorilla/mux cleans /proxies/.. to / and redirects (docs/toxiproxy.md, Limits).
        toxics: DOT_SEGMENTS.has(chosen) ? null : `/proxies/${q}/toxics`,
        presets: [],
        toxicTypes: [...TOXIC_TYPES.keys()],
      }),
    );
  }

  private events(req: http.IncomingMessage, res: http.ServerResponse): void {
    const name = proxyParam(req);
    if (name === undefined) throw new HttpError(400, 'missing ?proxy=NAME');
    const p = this.proxies.get(name);
    let s = this.streams.get(p);
    if (s === undefined) {
      // The proxy as it is at each tick: a disabled one shows its last stats, and the page says it is disabled.
      s = new EventStreams(
        { stats: () => p.stats(), commandLatency: () => p.proxy?.commandLatencyUs() ?? [], toxics: () => p.toxicSpecs(), enabled: () => p.enabled },
        { log: this.log },
      );
      this.streams.set(p, s);
    }
    s.accept(req, res);
  }
}

function proxyParam(req: http.IncomingMessage): string | undefined {
  return queryParam(req, 'proxy');
}

function listPage(names: readonly string[]): string {
  const items = names.map((n) => `<li><a href="${UI_PATH}?proxy=${esc(encodeURIComponent(n))}">${esc(n)}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_ICON}<title>redis-rtt server</title></head><body>
<h1>redis-rtt server</h1><p>${names.length === 0 ? 'No proxies yet: create one with POST /proxies.' : 'Pick a proxy:'}</p><ul>${items}</ul></body></html>
`;
}
