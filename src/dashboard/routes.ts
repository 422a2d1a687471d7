/** The dashboard's two routes on an HTTP endpoint: the page and its event stream. */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { Route } from '../http/router.js';
import type { EventStreams } from './event-streams.js';
import { dashboardPage, type PageConfig } from './page.js';
import { PAGE_SCRIPT } from './page-script.js';

// The page runs its own inline script and nothing else, and talks only to its own origin.
const CSP = [
  "default-src 'none'",
  `script-src 'sha256-${createHash('sha256').update(PAGE_SCRIPT).digest('base64')}'`,
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function dashboardRoutes(at: { page: string }, config: PageConfig, streams: EventStreams): Route[] {
  const html = dashboardPage(config);
  return [
    { path: at.page, methods: { GET: (_req, res) => sendPage(res, html) } },
    { path: config.events, methods: { GET: (req, res) => streams.accept(req, res) } },
  ];
}

/** A dashboard page (or any page of ours with no script but the dashboard's), with its headers. */
export function sendPage(res: http.ServerResponse, html: string): void {
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
  });
  res.end(html);
}
