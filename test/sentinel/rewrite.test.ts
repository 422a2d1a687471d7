import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RewriteContext } from '../../src/cluster/types.js';
import { ReplyFramer } from '../../src/resp/reply-framer.js';
import { parseFrame } from '../../src/resp/reply-tree.js';
import { rewriteSentinelEvent } from '../../src/sentinel/rewrite-event.js';
import { rewriteSentinelReply } from '../../src/sentinel/rewrite-reply.js';
import type { SentinelRewriteContext, SentinelRewriteResult } from '../../src/sentinel/types.js';

// Captured from redis-server 7.0.15: nodes 36390 (primary at first) and 36392 (after the failover the events show), sentinels 36391 and 36393.
const fixture = (name: string): Buffer => readFileSync(new URL(`../../fixtures/sentinel/${name}.down.resp`, import.meta.url));
const b = (s: string): Buffer => Buffer.from(s, 'latin1');

function ctx(nodes: Record<number, number>, sentinels: Record<number, number>): SentinelRewriteContext {
  const side = (known: Record<number, number>): RewriteContext => ({
    selfHost: '127.0.0.1',
    listenerFor: (host, port) => (host === '127.0.0.1' && known[port] !== undefined ? { host: 'px', port: known[port]! } : undefined),
  });
  return { nodes: side(nodes), sentinels: side(sentinels) };
}
const ALL = ctx({ 36390: 9000, 36392: 9002 }, { 36391: 9001, 36393: 9003 });

/** The reply as a plain value, maps as objects, to compare field by field. */
function plain(bytes: Buffer): unknown {
  const walk = (n: ReturnType<typeof parseFrame>): unknown => {
    if (!n.items) return n.text;
    if (n.type !== '%') return n.items.map(walk);
    return Object.fromEntries(Array.from({ length: n.items.length / 2 }, (_, i) => [n.items![2 * i]!.text, walk(n.items![2 * i + 1]!)]));
  };
  return walk(parseFrame(bytes));
}
const asMap = (flat: unknown[]): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]));

/** Frames `stream` fed in the given pieces. */
function frames(stream: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  const framer = new ReplyFramer({ frame: (f) => out.push(stream.subarray(f.start, f.end)), desync: (o, why) => out.push(b(`desync ${o} ${why}`)) });
  for (const cut of [...cuts, stream.length]) {
    framer.push(stream.subarray(at, cut));
    at = cut;
  }
  return out;
}

describe('SENTINEL replies', () => {
  it('REPLICAS (RESP2 flat arrays): name, ip, port, master-host and master-port become the listeners; every other field is kept', () => {
    const input = fixture('replicas.resp2');
    const r = rewriteSentinelReply(input, 'REPLICAS', ALL);
    expect(r.kind).toBe('replicas');
    const before = asMap((plain(input) as unknown[][])[0]!);
    const after = asMap((plain(r.bytes) as unknown[][])[0]!);
    expect(after).toEqual({ ...before, name: 'px:9000', ip: 'px', port: '9000', 'master-host': 'px', 'master-port': '9002' });
  });

  it('SENTINELS (RESP3 maps): a sentinel keeps its run id as name, its ip and port become its listener', () => {
    const input = fixture('sentinels.resp3');
    const r = rewriteSentinelReply(input, 'SENTINELS', ALL);
    const [before] = plain(input) as Record<string, string>[];
    const [after] = plain(r.bytes) as Record<string, string>[];
    expect(after).toEqual({ ...before, ip: 'px', port: '9003' });
    expect(before!.name).toMatch(/^[0-9a-f]{40}$/);
  });

  it('MASTER (RESP3 map) and GET-MASTER-ADDR-BY-NAME: the primary as given, rewritten; the master name is kept', () => {
    const master = rewriteSentinelReply(fixture('master.resp3'), 'MASTER', ALL);
    expect(plain(master.bytes)).toMatchObject({ name: 'mymaster', ip: 'px', port: '9002', flags: 'master', 'num-other-sentinels': '1' });
    expect(master.primary).toEqual({ host: '127.0.0.1', port: 36392, name: 'mymaster' });
    const addr = rewriteSentinelReply(b('*2\r\n$9\r\n127.0.0.1\r\n$5\r\n36392\r\n'), 'GET-MASTER-ADDR-BY-NAME', ALL);
    expect(addr.bytes.toString('latin1')).toBe('*2\r\n$2\r\npx\r\n$4\r\n9002\r\n');
    expect(addr.primary).toMatchObject({ host: '127.0.0.1', port: 36392 });
  });

  it('an unknown master (null), an error and an entry without ip pass unchanged; a node with no listener is reported missing and keeps its address, the others are rewritten', () => {
    for (const bytes of ['*-1\r\n', '_\r\n', '-ERR No such master with that name\r\n', '*1\r\n*2\r\n$5\r\nflags\r\n$1\r\nx\r\n']) {
      const r = rewriteSentinelReply(b(bytes), 'REPLICAS', ALL);
      expect(r.bytes.toString('latin1')).toBe(bytes);
      expect(r.kind).toBeUndefined();
    }
    const input = fixture('replicas.resp2');
    const r = rewriteSentinelReply(input, 'REPLICAS', ctx({ 36392: 9002 }, {}));
    expect(r.missing).toEqual({ nodes: [{ host: '127.0.0.1', port: 36390 }], sentinels: [] });
    // Passed whole, the reply sent clients to every node directly (a replica with no port left in --listen-ports).
    const [flat] = plain(r.bytes) as string[][];
    const entry = Object.fromEntries(Array.from({ length: flat!.length / 2 }, (_, i) => [flat![2 * i], flat![2 * i + 1]]));
    expect(entry).toMatchObject({ name: '127.0.0.1:36390', ip: '127.0.0.1', port: '36390', 'master-host': 'px', 'master-port': '9002' });
    expect(r.kind).toBe('replicas');
    expect(rewriteSentinelReply(b('*1\r\n$3\r\nabc\r\n'), 'MASTERS', ALL).unparsed).toMatch(/not a map/);
  });
});

describe('IPv6 instances', () => {
  // Redis names a replica by anetFormatAddr: "[::1]:47202" for an IPv6 address (redis-server 7.0.15, sentinel monitor on ::1).
  const v6: SentinelRewriteContext = (() => {
    const listeners: Record<string, number> = { '::1:47201': 9001, '::1:47202': 9002 };
    const side: RewriteContext = { selfHost: '::1', listenerFor: (host, port) => (listeners[`${host}:${port}`] ? { host: '::1', port: listeners[`${host}:${port}`]! } : undefined) };
    return { nodes: side, sentinels: { selfHost: '::1', listenerFor: () => undefined } };
  })();
  const bulk = (s: string): string => `$${s.length}\r\n${s}\r\n`;

  it("a replica's name [ip]:port becomes its listener's, as its ip and port do, in a REPLICAS reply and in a +slave event", () => {
    const fields = ['name', '[::1]:47202', 'ip', '::1', 'port', '47202', 'flags', 'slave', 'master-host', '::1', 'master-port', '47201'];
    const reply = rewriteSentinelReply(b(`*1\r\n%6\r\n${fields.map(bulk).join('')}`), 'REPLICAS', v6);
    expect(plain(reply.bytes)).toEqual([{ name: '[::1]:9002', ip: '::1', port: '9002', flags: 'slave', 'master-host': '::1', 'master-port': '9001' }]);
    const payload = 'slave [::1]:47202 ::1 47202 @ mymaster ::1 47201';
    const event = rewriteSentinelEvent(b(`*3\r\n${['message', '+slave', payload].map(bulk).join('')}`), v6);
    expect(plain(event.bytes)).toEqual(['message', '+slave', 'slave [::1]:9002 ::1 9002 @ mymaster ::1 9001']);
  });
});

describe('Sentinel events', () => {
  const expected = (stream: Buffer): string =>
    stream
      .toString('latin1')
      .replace(/127\.0\.0\.1:36390 127\.0\.0\.1 36390/g, 'px:9000 px 9000')
      .replace(/127\.0\.0\.1:36392 127\.0\.0\.1 36392/g, 'px:9002 px 9002')
      .replace(/127\.0\.0\.1 36390/g, 'px 9000')
      .replace(/127\.0\.0\.1 36392/g, 'px 9002');

  for (const proto of ['resp2', 'resp3']) {
    it(`${proto}: a whole failover's pmessages, framed whole, byte by byte and at seeded splits, come out with every address rewritten and valid framing`, () => {
      const stream = fixture(`failover-events.${proto}`);
      let seed = 7;
      const random = (): number => ((seed = (seed * 16807) % 2147483647) / 2147483647);
      const byByte = Array.from({ length: stream.length - 1 }, (_, i) => i + 1);
      const seeded = [...new Set(Array.from({ length: 40 }, () => 1 + Math.floor(random() * (stream.length - 1))))].sort((x, y) => x - y);
      const splits = [[], byByte, seeded];
      for (const cuts of splits) {
        const out = frames(stream, cuts).map((f) => {
          const r: SentinelRewriteResult = rewriteSentinelEvent(f, ALL);
          parseFrame(r.bytes);
          return r.bytes.toString('latin1');
        });
        // Only the payloads changed, and their lengths with them.
        const want = expected(stream).replace(/\$(\d+)\r\n([^\r]*)\r\n/g, (_m, _n, body: string) => `$${Buffer.byteLength(body, 'latin1')}\r\n${body}\r\n`);
        expect(out.join('')).toBe(want);
      }
      expect(stream.toString('latin1')).toContain('+switch-master\r\n$40\r\nmymaster 127.0.0.1 36390 127.0.0.1 36392\r\n');
    });
  }

  it('a +sentinel event names a sentinel listener; a new replica in +slave is reported missing; other payloads and plain replies pass', () => {
    const push = (payload: string, channel = '+sentinel'): Buffer => b(`>3\r\n$7\r\nmessage\r\n$${channel.length}\r\n${channel}\r\n$${payload.length}\r\n${payload}\r\n`);
    const s = rewriteSentinelEvent(push('sentinel 8d6b 127.0.0.1 36393 @ mymaster 127.0.0.1 36390'), ALL);
    expect(plain(s.bytes)).toEqual(['message', '+sentinel', 'sentinel 8d6b px 9003 @ mymaster px 9000']);
    // Redis's "%@ ip %s port %d for %s": the sentinel's new address went out real.
    const moved = rewriteSentinelEvent(push('master mymaster 127.0.0.1 36390 ip 127.0.0.1 port 36393 for 8d6b', '+sentinel-address-switch'), ALL);
    expect(plain(moved.bytes)).toEqual(['message', '+sentinel-address-switch', 'master mymaster px 9000 ip px port 9003 for 8d6b']);
    const n = rewriteSentinelEvent(push('slave 127.0.0.1:36399 127.0.0.1 36399 @ mymaster 127.0.0.1 36390', '+slave'), ALL);
    expect(n.missing.nodes).toEqual([{ host: '127.0.0.1', port: 36399 }]);
    // Sentinel's "address not known yet" is no address: kept, and no listener asked for.
    const unknown = rewriteSentinelEvent(push('slave ?:0 ? 0 @ mymaster 127.0.0.1 36390', '+slave'), ALL);
    expect(plain(unknown.bytes)).toEqual(['message', '+slave', 'slave ?:0 ? 0 @ mymaster px 9000']);
    expect(rewriteSentinelReply(b('*1\r\n*4\r\n$2\r\nip\r\n$1\r\n?\r\n$4\r\nport\r\n$1\r\n0\r\n'), 'REPLICAS', ALL).missing.nodes).toEqual([]);
    for (const frame of [push('2', '+new-epoch'), push('#tilt mode entered', '+tilt'), b('*2\r\n$9\r\n127.0.0.1\r\n$5\r\n36390\r\n')]) {
      expect(rewriteSentinelEvent(frame, ALL).bytes).toBe(frame);
    }
  });
});
