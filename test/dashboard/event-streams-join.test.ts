/**
 * A page that opens the stream gets the latest event at once, and nobody else gets an extra one:
 * every new stream used to take a reading and send it to every open stream, so N pages opening
 * together cost N readings and N x N events (500 pages: ~75 events each in 4 s instead of 16).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStreams } from '../../src/dashboard/event-streams.js';
import { SNAPSHOT } from '../stats/snapshot-fixture.js';
import { openEvents, type EventsClient } from './events-client.js';

let server: http.Server | undefined;
let streams: EventStreams | undefined;
const clients: EventsClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.req.destroy();
  streams?.close();
  await new Promise((r) => server?.close(r));
});

describe('a stream that opens while others are open', () => {
  it('gets the last event; the open ones get no extra event and no reading is taken for it', async () => {
    let readings = 0;
    // An hour between ticks: every event in this test comes from a stream opening.
    streams = new EventStreams({ stats: () => (readings++, SNAPSHOT), commandLatency: () => [] }, { intervalMs: 3_600_000 });
    const s = streams;
    server = http.createServer((req, res) => s.accept(req, res));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const first = await openEvents(address);
    clients.push(first);
    for (let i = 0; i < 5; i++) clients.push(await openEvents(address));
    expect(streams.size).toBe(6);
    for (const c of clients) expect(c.events).toHaveLength(1);
    expect(clients.map((c) => c.events[0])).toEqual(Array(6).fill(first.events[0]));
    expect(readings).toBe(1);
  });

  it('a stream after the last one left starts a new window with a fresh reading', async () => {
    let readings = 0;
    streams = new EventStreams({ stats: () => (readings++, SNAPSHOT), commandLatency: () => [] }, { intervalMs: 3_600_000 });
    const s = streams;
    server = http.createServer((req, res) => s.accept(req, res));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const a = await openEvents(address);
    a.req.destroy();
    await a.ended;
    await expect.poll(() => s.running).toBe(false);
    const b = await openEvents(address);
    clients.push(b);
    expect(readings).toBe(2);
    expect(b.events[0]).toMatchObject({ windowMs: 0 });
  });
});
