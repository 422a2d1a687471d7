/**
 * Past the pending-request bound the tap drops its records (pending-budget.ts). A connection of plain
 * requests is then counted without them until Redis has answered every request of that round trip,
 * and matched again after it: a client that pipelined past the bound once (redis-py's pipeline() of
 * 100k SETs, redis-cli --pipe of a big file) kept counting commands only, no replies or round trips,
 * for the rest of its life.
 */
import { describe, expect, it } from 'vitest';
import { PendingBudget } from '../../src/tap/pending-budget.js';
import { bulk, err, ok, push, queued, Wire } from './frames.js';

/** A connection whose tap holds at most 4 unfinished requests. */
const wire = (): Wire => new Wire({ budget: new PendingBudget(4, 100) });

/** 10 GETs at once, Redis's 10 replies, all delivered: the bound is passed at the fifth. */
function pipelinePastTheBound(w: Wire): void {
  for (let i = 0; i < 10; i++) w.send(['GET', `k${i}`], 1000);
  w.sent(2000);
  for (let i = 0; i < 10; i++) w.reply(i === 7 ? err('WRONGTYPE') : bulk, 3000);
  w.delivered(4000);
}

describe('a degraded tap counts a window of plain requests and matches again after it', () => {
  it('the pipeline is one round trip with every reply; the loop after it is matched and timed', () => {
    const w = wire();
    pipelinePastTheBound(w);
    expect(w.c.degraded).toBe(false);
    expect(w.c.everDegraded).toBe(true);
    for (let i = 0; i < 3; i++) w.roundTrip(['GET', 'a'], bulk, 10_000 * (i + 1));
    const c = w.c.counters;
    expect(c).toMatchObject({ commands: 13, replies: 13, pushes: 0, errorReplies: 1, roundTrips: 4, flights: 4, maxDepth: 4 });
    expect(c.errorsByPrefix).toEqual({ WRONGTYPE: 1 });
    expect(c.depthHistogram).toEqual({ '1': 3, '8-15': 1 });
    expect(w.commands.entry('GET', false).count).toBe(13);
    // Timed: the 4 before the bound... none of them finished before it; the 3 after, each.
    expect(w.commands.entry('GET', false).clientUs.count).toBe(3);
    expect(w.c.pending).toBe(0);
    expect(w.c.outstanding).toBe(0);
  });

  it('a RESP3 push in the window is a push; the window ends when the last reply reached the client', () => {
    const w = wire();
    for (let i = 0; i < 6; i++) w.send(['GET', `k${i}`], 1000);
    w.sent(2000);
    for (let i = 0; i < 6; i++) w.reply(bulk, 3000);
    w.reply(push('invalidate', 2), 3000);
    expect(w.c.degraded).toBe(true); // the replies are not delivered yet
    w.send(['GET', 'late'], 3500); // joins the open round trip
    w.delivered(4000);
    expect(w.c.degraded).toBe(true);
    w.reply(bulk, 5000);
    w.delivered(6000);
    expect(w.c.degraded).toBe(false);
    expect(w.c.counters).toMatchObject({ commands: 7, replies: 7, pushes: 1, roundTrips: 1, flights: 1 });
    expect(w.c.counters.depthHistogram).toEqual({ '4-7': 1 });
  });

  it('a write the proxy reported before the framer saw its bytes ends the window at the frame', () => {
    const w = wire();
    for (let i = 0; i < 5; i++) w.send(['GET', `k${i}`], 1000);
    w.sent(2000);
    w.c.downWritten(5 * 9, 3000); // the five replies' bytes, reported first (a link without delay)
    for (let i = 0; i < 5; i++) w.reply(bulk, 3000);
    expect(w.c.degraded).toBe(false);
    w.roundTrip(['GET', 'a'], bulk, 10_000);
    expect(w.c.counters).toMatchObject({ commands: 6, replies: 6, roundTrips: 2 });
  });

  it('a request that needs records (SUBSCRIBE, MULTI, CLIENT REPLY) keeps the connection degraded, as before', () => {
    for (const odd of [['SUBSCRIBE', 'ch'], ['MULTI'], ['CLIENT', 'REPLY', 'OFF']]) {
      const w = wire();
      for (let i = 0; i < 5; i++) w.send(['GET', `k${i}`], 1000);
      w.send(odd, 1000);
      w.sent(2000);
      for (let i = 0; i < 5; i++) w.reply(bulk, 3000);
      if (odd[0] !== 'CLIENT') w.reply(odd[0] === 'MULTI' ? ok : push('subscribe', 3, 1), 3000);
      w.delivered(4000);
      w.roundTrip(['GET', 'a'], odd[0] === 'MULTI' ? queued : bulk, 10_000);
      expect([odd[0], w.c.degraded, w.c.counters.commands, w.c.counters.replies]).toEqual([odd[0], true, 7, 0]);
    }
  });

  it('degraded with a transaction open: no window, as before', () => {
    const w = wire();
    w.send(['MULTI'], 1000);
    for (let i = 0; i < 5; i++) w.send(['INCR', 'n'], 1000);
    w.sent(2000);
    w.reply(ok, 3000);
    for (let i = 0; i < 5; i++) w.reply(queued, 3000);
    w.delivered(4000);
    w.roundTrip(['GET', 'a'], bulk, 10_000);
    expect(w.c.degraded).toBe(true);
    expect(w.c.counters).toMatchObject({ commands: 7, replies: 0 });
  });
});
