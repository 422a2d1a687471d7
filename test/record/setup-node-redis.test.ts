import { describe, expect, it } from 'vitest';
import { analyzeTrace } from '../../src/record/analyze.js';
import { commandName } from '../../src/resp/command-name.js';
import type { TapEvent } from '../../src/stats/types.js';
import { LOCAL_LINK, Session, traceOf } from './synthetic.js';

// node-redis 5's connect round trip, as recorded through the proxy (HELLO and CLIENT SETINFO, then
// CLIENT MAINT_NOTIFICATIONS on moving-endpoint-type internal-ip), pipelined before the first GET.
const NODE_REDIS_CONNECT = ['HELLO', 'CLIENT SETINFO', 'CLIENT SETINFO', 'CLIENT MAINT_NOTIFICATIONS'];

describe("node-redis 5's connect round trip", () => {
  it('the tap names CLIENT MAINT_NOTIFICATIONS (not "CLIENT ?")', () => {
    const head = ['CLIENT', 'MAINT_NOTIFICATIONS', 'on', 'moving-endpoint-type', 'internal-ip'].map((s) => Buffer.from(s));
    expect(commandName(head, 5)).toBe('CLIENT MAINT_NOTIFICATIONS');
    expect(commandName([Buffer.from('client'), Buffer.from('maint_notifications')], 5)).toBe('CLIENT MAINT_NOTIFICATIONS');
  });

  it('counts as set-up, like ioredis\'s HELLO and SETINFO', () => {
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 0, 1000);
    s.rt(NODE_REDIS_CONNECT);
    for (let i = 0; i < 5; i++) s.rt(['GET']);
    s.close();
    const a = analyzeTrace(traceOf(events, { ...LOCAL_LINK, upUs: 500, downUs: 500 }), { rttsUs: [20_000] });
    expect(a.setup.commandRoundTrips).toBe(1);
    expect(a.setup.setupCommands).toEqual({ HELLO: 1, 'CLIENT SETINFO': 2, 'CLIENT MAINT_NOTIFICATIONS': 1 });
    expect(a.setup.otherCommands).toBe(5);
    // TCP connect and the connect round trip at 20 ms; the synthetic Redis takes 50 us a command, and the
    // four requests arrive 1 us apart.
    const n = NODE_REDIS_CONNECT.length;
    expect(a.projections[0]!.setupMs).toBeCloseTo(20 + 20 + (n * 50 + (n - 1)) / 1000, 3);
  });
});
