/** A test's reader of a dashboard event stream (GET /events, /ui/events): the events as they come. */
import http from 'node:http';
import { vi } from 'vitest';
import type { DashboardEvent } from '../../src/dashboard/types.js';

export interface EventsClient {
  req: http.ClientRequest;
  res: http.IncomingMessage;
  /** Every event so far, in order. */
  events: DashboardEvent[];
  /** The first event (of those so far or to come) that `match` accepts. */
  next(match: (e: DashboardEvent) => boolean, timeoutMs?: number): Promise<DashboardEvent>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
}

/** Opens the stream on "host:port"; resolves once the first event came. */
export function openEvents(address: string, path = '/events', headers: Record<string, string> = {}): Promise<EventsClient> {
  const i = address.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    const req = http.get({ host: address.slice(0, i), port: Number(address.slice(i + 1)), path, headers, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`${path}: status ${res.statusCode}`));
      const events: DashboardEvent[] = [];
      const ended = new Promise<void>((done) => res.on('close', () => done()));
      const client: EventsClient = {
        req,
        res,
        events,
        ended,
        next: (match, timeoutMs = 10_000) =>
          vi.waitFor(
            () => {
              const e = events.find(match);
              if (!e) throw new Error(`no matching event among ${events.length}`);
              return e;
            },
            { timeout: timeoutMs, interval: 20 },
          ),
      };
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        let end;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const m = /^event: stats\ndata: (.*)$/s.exec(text.slice(0, end));
          text = text.slice(end + 2);
          if (m) events.push(JSON.parse(m[1]!) as DashboardEvent);
        }
        if (events.length > 0) resolve(client);
      });
    });
    req.on('error', reject);
  });
}
