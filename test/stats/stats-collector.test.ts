import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { NO_DELAY } from '../../src/link/types.js';
import { StatsCollector } from '../../src/stats/stats-collector.js';
import type { TapEvent } from '../../src/stats/types.js';
import type { ConnectionTap } from '../../src/tap/types.js';

const enc = (s: string): Buffer => Buffer.from(s.replace(/\|/g, '\r\n'));

function exchange(tap: ConnectionTap, up: string, down: string, t0Ns: number, offsets: { up: number; down: number }): void {
  const u = enc(up);
  const d = enc(down);
  tap.upChunk(u, t0Ns);
  offsets.up += u.length;
  tap.upWritten(offsets.up, t0Ns + 1000);
  tap.downChunk(d, t0Ns + 2000);
  offsets.down += d.length;
  tap.downWritten(offsets.down, t0Ns + 3000);
}

describe('StatsCollector', () => {
  it('sums live and closed connections and merges per-command stats', () => {
    const clock = new FakeClock(5_000);
    const events: TapEvent[] = [];
    const r = new StatsCollector({ clock, wallClockMs: () => 1000 });
    const a = r.openConnection({ client: '127.0.0.1:1', onEvent: (e) => events.push(e) });
    const b = r.openConnection({ client: '127.0.0.1:2' });
    const oa = { up: 0, down: 0 };
    const ob = { up: 0, down: 0 };
    exchange(a, 'GET k|', '$1|v|', 0, oa);
    exchange(b, 'GET k|GET k|', '$1|v|$-1|', 0, ob);
    exchange(b, 'NOPE|', '-ERR unknown command|', 10_000, ob);
    a.close(20_000);
    const s = r.snapshot(NO_DELAY);
    expect(Object.keys(s)).toEqual(['totals', 'commands', 'connections', 'link', 'tap']);
    expect(s.connections).toEqual({ active: 1, total: 2 });
    expect(s.totals).toMatchObject({ commands: 4, replies: 4, roundTrips: 3, maxDepth: 2, errorReplies: 1 });
    expect(s.totals.depthHistogram).toEqual({ '1': 2, '2-3': 1 });
    expect(s.commands['GET']).toMatchObject({ count: 3, errors: 0 });
    expect(s.commands['GET']?.clientUs.count).toBe(3);
    // an unknown command that is not a module command (no dot) is counted as '?', never by its text
    expect(s.commands['?']).toMatchObject({ count: 1, errors: 1 });
    expect(s.link).toEqual(NO_DELAY);
    expect(events[0]).toEqual({ type: 'open', conn: 1, atUs: 5, client: '127.0.0.1:1' });
    const live = r.connectionsInfo();
    expect(live.map((c) => c.id)).toEqual([2]);
    expect(live[0]).toMatchObject({ client: '127.0.0.1:2', openedAtMs: 1000, outstanding: 0, protocol: 2, mode: 'normal', desynced: false });
    expect(live[0]?.counters.commands).toBe(3);
  });

  it('reset zeroes counters and histograms; active stays; total restarts from active', () => {
    const r = new StatsCollector({ clock: new FakeClock() });
    const a = r.openConnection({ client: 'a' });
    const b = r.openConnection({ client: 'b' });
    const oa = { up: 0, down: 0 };
    exchange(a, 'PING|', '+PONG|', 0, oa);
    b.close(1);
    r.reset();
    let s = r.snapshot(NO_DELAY);
    expect(s.connections).toEqual({ active: 1, total: 1 });
    expect(s.totals.commands).toBe(0);
    expect(s.totals.bytesUp).toBe(0);
    expect(s.commands).toEqual({});
    exchange(a, 'PING|', '+PONG|', 10_000, oa);
    s = r.snapshot(NO_DELAY);
    expect(s.totals).toMatchObject({ commands: 1, replies: 1, roundTrips: 1, bytesUp: 6, bytesDown: 7 });
    expect(s.commands['PING']?.serverUs.count).toBe(1);
  });

  it('a reset mid-pipeline counts the requests not yet delivered in the new period: commands, replies and histograms add up', () => {
    const r = new StatsCollector({ clock: new FakeClock() });
    const a = r.openConnection({ client: 'a' });
    const up = enc('GET k|GET k|BLPOP q 0|');
    a.upChunk(up, 0);
    a.upWritten(up.length, 1000);
    // Both GETs' replies read from Redis, the first one delivered; the second held by the down delay; BLPOP's owed.
    const first = enc('$1|v|');
    a.downChunk(enc('$1|v|$-1|'), 2000);
    a.downWritten(first.length, 3000);
    r.reset();
    let s = r.snapshot(NO_DELAY);
    expect(s.totals).toMatchObject({ commands: 2, replies: 1, blockingCommands: 1, maxDepth: 2, roundTrips: 1 });
    expect([s.commands['GET']?.count, s.commands['BLPOP']?.count]).toEqual([1, 1]);
    const rest = enc('*2|$1|q|$1|x|');
    a.downChunk(rest, 4000);
    a.downWritten(enc('$1|v|$-1|').length + rest.length, 5000);
    s = r.snapshot(NO_DELAY);
    // It gave 0 commands, 1 reply and 2 GET latencies for a GET count of 0: more replies than commands after each
    // reset under load.
    expect(s.totals).toMatchObject({ commands: 2, replies: 2, blockingCommands: 1 });
    expect([s.commands['GET']?.count, s.commands['GET']?.clientUs.count]).toEqual([1, 1]);
    expect([s.commands['BLPOP']?.count, s.commands['BLPOP']?.clientUs.count]).toEqual([1, 1]);
    a.close(6000);
  });

  it('a reset carries an error reply not yet delivered with its request', () => {
    const r = new StatsCollector({ clock: new FakeClock() });
    const a = r.openConnection({ client: 'a' });
    const up = enc('NOPE|');
    a.upChunk(up, 0);
    a.upWritten(up.length, 1000);
    const down = enc('-ERR unknown command|');
    a.downChunk(down, 2000);
    r.reset();
    a.downWritten(down.length, 3000);
    const s = r.snapshot(NO_DELAY);
    expect(s.totals).toMatchObject({ commands: 1, replies: 1, errorReplies: 1, errorsByPrefix: { ERR: 1 } });
    expect(Object.values(s.commands).map((c) => [c.count, c.errors, c.clientUs.count])).toEqual([[1, 1, 1]]);
    a.close(4000);
  });

  it('takes connection ids from the proxy when given, numbers them otherwise', () => {
    const r = new StatsCollector();
    expect(r.openConnection({ client: 'x', id: 41 }).info().id).toBe(41);
    expect(r.openConnection({ client: 'y' }).info().id).toBe(42);
  });

  it('closing twice folds the counters once', () => {
    const r = new StatsCollector();
    const a = r.openConnection({ client: 'a' });
    a.upChunk(enc('PING|'), 0);
    a.close(1);
    a.close(2);
    expect(r.snapshot(NO_DELAY).totals.commands).toBe(1);
  });
});
