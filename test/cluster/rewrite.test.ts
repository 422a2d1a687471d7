import { describe, expect, it } from 'vitest';
import { rewriteReply, topologyKind } from '../../src/cluster/rewrite-reply.js';
import { parseFrame } from '../../src/resp/reply-tree.js';
import type { RewriteContext } from '../../src/cluster/types.js';
import { ReplyFramer } from '../../src/resp/reply-framer.js';

// Real node ports as Redis 7.0.15 wrote them in the captures below, and the listeners they map to.
const MAP: Record<string, number> = { '127.0.0.1:43369': 7001, '127.0.0.1:35721': 7002, '127.0.0.1:41657': 7003, '127.0.0.1:46541': 7004 };
const ctx = (extra: Record<string, number> = {}): RewriteContext => ({
  selfHost: '127.0.0.1',
  listenerFor: (host, port) => {
    const p = { ...MAP, ...extra }[`${host}:${port}`];
    return p === undefined ? undefined : { host: 'px.local', port: p };
  },
});
const b = (s: string): Buffer => Buffer.from(s, 'latin1');
const bulk = (s: string): string => `$${Buffer.byteLength(s, 'latin1')}\r\n${s}\r\n`;
const run = (input: string, kind = topologyKind('CLUSTER', [b('SLOTS')]), c = ctx()) => rewriteReply(b(input), c, kind);

const ID1 = '8e53bcd7a4136b52b7fad9e1f03a5361f3b6a17b';
const ID2 = 'd990c4ba2d58ca676d6fc9b829b168054bdad471';
const slotsNode = (host: string, port: number, id: string, meta: string): string => `*4\r\n${bulk(host)}:${port}\r\n${bulk(id)}${meta}`;

describe('topologyKind', () => {
  it('names the CLUSTER subcommands that carry addresses, in any case', () => {
    expect(topologyKind('CLUSTER', [b('slots')])).toBe('slots');
    expect(topologyKind('CLUSTER', [b('Shards')])).toBe('shards');
    expect(topologyKind('CLUSTER', [b('NODES')])).toBe('nodes');
    expect(topologyKind('CLUSTER', [b('replicas'), b(ID1)])).toBe('replicas');
    expect(topologyKind('CLUSTER', [b('SLAVES'), b(ID1)])).toBe('replicas');
    expect(topologyKind('CLUSTER', [b('INFO')])).toBeUndefined();
    expect(topologyKind('CLUSTER', [])).toBeUndefined();
    expect(topologyKind('GET', [b('slots')])).toBeUndefined();
  });
});

describe('CLUSTER SLOTS', () => {
  const range = (a: number, z: number, ...nodes: string[]): string => `*${2 + nodes.length}\r\n:${a}\r\n:${z}\r\n${nodes.join('')}`;
  it('RESP2, empty metadata: endpoint and port of every node, nothing else', () => {
    const input = `*2\r\n${range(0, 5460, slotsNode('127.0.0.1', 43369, ID1, '*0\r\n'), slotsNode('127.0.0.1', 46541, ID2, '*0\r\n'))}${range(5461, 10922, slotsNode('127.0.0.1', 35721, ID2, '*0\r\n'))}`;
    const want = `*2\r\n${range(0, 5460, slotsNode('px.local', 7001, ID1, '*0\r\n'), slotsNode('px.local', 7004, ID2, '*0\r\n'))}${range(5461, 10922, slotsNode('px.local', 7002, ID2, '*0\r\n'))}`;
    const r = run(input);
    expect(r.bytes.toString('latin1')).toBe(want);
    expect(r.kinds).toEqual(['slots']);
    expect(r.missing).toEqual([]);
  });
  it('a fragmented slot map (a thousand ranges, primary and replica each) is rewritten whole, in RESP2 and RESP3', () => {
    // Every leaf read and replaced: the parser's header and short-text reading, one splice per address.
    const ranges = (host: (p: number) => string, port: (p: number) => number, meta: string): string => {
      const out = [`*1024\r\n`];
      for (let slot = 0; slot < 16384; slot += 16) {
        const [primary, replica] = slot % 2 === 0 ? [43369, 46541] : [35721, 41657];
        out.push(range(slot, slot, slotsNode(host(primary), port(primary), ID1, meta), slotsNode(host(replica), port(replica), ID2, meta)));
      }
      return out.join('');
    };
    for (const meta of ['*0\r\n', '%0\r\n']) {
      const input = ranges(() => '127.0.0.1', (p) => p, meta);
      const r = run(input);
      expect(r.bytes.equals(b(ranges(() => 'px.local', (p) => MAP[`127.0.0.1:${p}`]!, meta)))).toBe(true);
      expect(r.missing).toEqual([]);
    }
  });
  it('RESP3 with hostname endpoints: ip metadata names the node, endpoint, ip and hostname all become the listener host', () => {
    const meta = (ip: string, host: string): string => `%2\r\n${bulk('ip')}${bulk(ip)}${bulk('hostname')}${bulk(host)}`;
    const input = `*1\r\n${range(0, 16383, slotsNode('node-a.internal', 43369, ID1, meta('127.0.0.1', 'node-a.internal')))}`;
    const want = `*1\r\n${range(0, 16383, slotsNode('px.local', 7001, ID1, meta('px.local', 'px.local')))}`;
    expect(run(input).bytes.toString('latin1')).toBe(want);
  });
  it('RESP2 flat metadata array, a null endpoint (unknown-endpoint) stays null and a "?" stays "?"', () => {
    const meta = `*2\r\n${bulk('ip')}${bulk('127.0.0.1')}`;
    const nullNode = `*4\r\n$-1\r\n:43369\r\n${bulk(ID1)}${meta}`;
    const qNode = `*4\r\n${bulk('?')}:35721\r\n${bulk(ID2)}${meta}`;
    const input = `*1\r\n${range(0, 1, nullNode, qNode)}`;
    const want = `*1\r\n${range(0, 1, `*4\r\n$-1\r\n:7001\r\n${bulk(ID1)}*2\r\n${bulk('ip')}${bulk('px.local')}`, `*4\r\n${bulk('?')}:7002\r\n${bulk(ID2)}*2\r\n${bulk('ip')}${bulk('px.local')}`)}`;
    expect(run(input).bytes.toString('latin1')).toBe(want);
  });
  it('a node with no address (empty endpoint, port 0: noaddr, still owning slots) stays as it is, the other nodes are rewritten', () => {
    const noaddr = `*3\r\n${bulk('')}:0\r\n${bulk(ID1)}`;
    const input = `*2\r\n${range(0, 17, noaddr)}${range(18, 5460, slotsNode('127.0.0.1', 43369, ID2, '*0\r\n'))}`;
    const r = run(input);
    expect(r.bytes.toString('latin1')).toBe(`*2\r\n${range(0, 17, noaddr)}${range(18, 5460, slotsNode('px.local', 7001, ID2, '*0\r\n'))}`);
    expect(r.missing).toEqual([]);
  });
  it('a node without a listener yet: unchanged bytes and its real address in missing', () => {
    const input = `*1\r\n${range(0, 1, slotsNode('127.0.0.1', 50000, ID1, '*0\r\n'))}`;
    const r = run(input);
    expect(r.bytes.toString('latin1')).toBe(input);
    expect(r.missing).toEqual([{ host: '127.0.0.1', port: 50000 }]);
    const again = run(input, 'slots', ctx({ '127.0.0.1:50000': 7050 }));
    expect(again.bytes.toString('latin1')).toBe(`*1\r\n${range(0, 1, slotsNode('px.local', 7050, ID1, '*0\r\n'))}`);
  });
  it('an error reply to CLUSTER SLOTS passes unchanged and is not counted as unparsed', () => {
    const r = run('-ERR This instance has cluster support disabled\r\n');
    expect(r.bytes.toString('latin1')).toBe('-ERR This instance has cluster support disabled\r\n');
    expect(r.unparsed).toBeUndefined();
    expect(r.kinds).toEqual([]);
  });
  it('an unparseable reply passes unchanged and says why', () => {
    for (const input of ['*1\r\n:5\r\n', '$5\r\nhello\r\n', '*1\r\n*3\r\n:0\r\n:1\r\n*2\r\n$1\r\nx\r\n$2\r\nno\r\n']) {
      const r = run(input);
      expect(r.bytes.toString('latin1')).toBe(input);
      expect(r.unparsed?.kind).toBe('slots');
      expect(r.unparsed?.reason).toMatch(/CLUSTER SLOTS/);
    }
  });
});

describe('CLUSTER SHARDS', () => {
  const node = (open: string, port: number, extra = ''): string =>
    `${open}${bulk('id')}${bulk(ID2)}${bulk('port')}:${port}\r\n${bulk('ip')}${bulk('127.0.0.1')}${bulk('endpoint')}${bulk('127.0.0.1')}${extra}${bulk('role')}${bulk('master')}${bulk('replication-offset')}:0\r\n${bulk('health')}${bulk('online')}`;
  const nodeOut = (open: string, port: number, extra = ''): string =>
    `${open}${bulk('id')}${bulk(ID2)}${bulk('port')}:${port}\r\n${bulk('ip')}${bulk('px.local')}${bulk('endpoint')}${bulk('px.local')}${extra}${bulk('role')}${bulk('master')}${bulk('replication-offset')}:0\r\n${bulk('health')}${bulk('online')}`;
  const shard = (open: string, nodes: string[]): string => `${open}${bulk('slots')}*2\r\n:5461\r\n:10922\r\n${bulk('nodes')}*${nodes.length}\r\n${nodes.join('')}`;
  const kind = topologyKind('CLUSTER', [b('SHARDS')]);
  it('RESP2 (flat arrays): ip, endpoint, port', () => {
    const input = `*1\r\n${shard('*4\r\n', [node('*14\r\n', 35721)])}`;
    const want = `*1\r\n${shard('*4\r\n', [nodeOut('*14\r\n', 7002)])}`;
    const r = run(input, kind);
    expect(r.bytes.toString('latin1')).toBe(want);
    expect(r.kinds).toEqual(['shards']);
  });
  it('a node with no address (noaddr: empty ip and endpoint, no port) stays as it is; the reply is parsed and the others rewritten', () => {
    // As Redis 7.0.15 lists a forgotten node that still owns slots 0-17: it went out unparsed, every real address in it.
    const noaddr = `*12\r\n${bulk('id')}${bulk(ID1)}${bulk('ip')}${bulk('')}${bulk('endpoint')}${bulk('')}${bulk('role')}${bulk('master')}${bulk('replication-offset')}:0\r\n${bulk('health')}${bulk('online')}`;
    const input = `*2\r\n${shard('*4\r\n', [noaddr])}${shard('*4\r\n', [node('*14\r\n', 35721)])}`;
    const r = run(input, kind);
    expect(r.unparsed).toBeUndefined();
    expect(r.bytes.toString('latin1')).toBe(`*2\r\n${shard('*4\r\n', [noaddr])}${shard('*4\r\n', [nodeOut('*14\r\n', 7002)])}`);
    expect(r.missing).toEqual([]);
  });
  // A node map from [key, RESP value] pairs, so tests can place and leave out port / tls-port.
  const pairs = (open: string, kv: [string, string][]): string => `${open}${kv.map(([k, v]) => bulk(k) + v).join('')}`;
  const tail = (ip: string): [string, string][] => [['ip', bulk(ip)], ['endpoint', bulk(ip)], ['role', bulk('master')]];
  const withCtx = (flags: Pick<RewriteContext, 'listenTls' | 'upstreamTls'>): RewriteContext => ({ ...ctx(), ...flags });
  it('RESP3 (maps), plaintext listener: hostname rewritten, port kept, tls-port dropped (the map shrinks by one pair)', () => {
    const extraIn = `${bulk('hostname')}${bulk('node-b')}${bulk('tls-port')}:46000\r\n`;
    const input = `*1\r\n${shard('%2\r\n', [node('%9\r\n', 35721, extraIn)])}`;
    const want = `*1\r\n${shard('%2\r\n', [nodeOut('%8\r\n', 7002, `${bulk('hostname')}${bulk('px.local')}`)])}`;
    expect(run(input, kind).bytes.toString('latin1')).toBe(want);
  });
  it('TLS listeners over upstream TLS: the real port is tls-port; it becomes the listener port and port is dropped', () => {
    const input = `*1\r\n${shard('%2\r\n', [pairs('%6\r\n', [['id', bulk(ID2)], ['port', ':30001\r\n'], ['tls-port', ':35721\r\n'], ...tail('127.0.0.1')])])}`;
    const want = `*1\r\n${shard('%2\r\n', [pairs('%5\r\n', [['id', bulk(ID2)], ['tls-port', ':7002\r\n'], ...tail('px.local')])])}`;
    const r = run(input, kind, withCtx({ listenTls: true, upstreamTls: true }));
    expect(r.bytes.toString('latin1')).toBe(want);
    expect(r.missing).toEqual([]);
  });
  it('a TLS-only node (no plain port, as with --port 0) to plaintext listeners: tls-port becomes port, the map keeps its size', () => {
    const input = `*1\r\n${shard('*4\r\n', [pairs('*10\r\n', [['id', bulk(ID2)], ['tls-port', ':35721\r\n'], ...tail('127.0.0.1')])])}`;
    const want = `*1\r\n${shard('*4\r\n', [pairs('*10\r\n', [['id', bulk(ID2)], ['port', ':7002\r\n'], ...tail('px.local')])])}`;
    expect(run(input, kind, withCtx({ upstreamTls: true })).bytes.toString('latin1')).toBe(want);
  });
  it('a plaintext cluster to TLS listeners, RESP2: port becomes tls-port; with both keys the other is dropped (*2N counts elements)', () => {
    const only = `*1\r\n${shard('*4\r\n', [pairs('*10\r\n', [['id', bulk(ID2)], ['port', ':35721\r\n'], ...tail('127.0.0.1')])])}`;
    const onlyWant = `*1\r\n${shard('*4\r\n', [pairs('*10\r\n', [['id', bulk(ID2)], ['tls-port', ':7002\r\n'], ...tail('px.local')])])}`;
    expect(run(only, kind, withCtx({ listenTls: true })).bytes.toString('latin1')).toBe(onlyWant);
    const both = `*1\r\n${shard('*4\r\n', [pairs('*12\r\n', [['id', bulk(ID2)], ['port', ':35721\r\n'], ['tls-port', ':46000\r\n'], ...tail('127.0.0.1')])])}`;
    expect(run(both, kind, withCtx({ listenTls: true })).bytes.toString('latin1')).toBe(onlyWant);
  });
});

describe('CLUSTER NODES and REPLICAS text', () => {
  const line = (addr: string, flags: string): string => `${ID1} ${addr} ${flags} - 0 1796082587033 2 connected 5461-10922`;
  const text = [line('127.0.0.1:35721@43893', 'master'), line('127.0.0.1:43369@39211,node-a.internal', 'myself,master'), line(':0@0', 'noaddr,handshake'), ''].join('\n');
  const want = [line('px.local:7002@43893', 'master'), line('px.local:7001@39211,px.local', 'myself,master'), line(':0@0', 'noaddr,handshake'), ''].join('\n');
  const kind = topologyKind('CLUSTER', [b('NODES')]);
  it('RESP2 bulk: ip:port and the hostname change; bus port and address-less nodes stay', () => {
    const r = run(bulk(text), kind);
    expect(r.bytes.toString('latin1')).toBe(bulk(want));
    expect(r.kinds).toEqual(['nodes']);
  });
  it('RESP3 verbatim string keeps its txt format', () => {
    const v = (s: string): string => `=${s.length + 4}\r\ntxt:${s}\r\n`;
    expect(run(v(text), kind).bytes.toString('latin1')).toBe(v(want));
  });
  it("Redis 7.2's aux fields after the hostname stay; an empty hostname (none announced) stays empty", () => {
    const aux = 'shard-id=69bc080733d1355567173199cff4a6a039a2f024';
    const t = [line(`127.0.0.1:35721@43893,node-b.internal,${aux}`, 'master'), line(`127.0.0.1:43369@39211,,${aux}`, 'myself,master'), ''].join('\n');
    const w = [line(`px.local:7002@43893,px.local,${aux}`, 'master'), line(`px.local:7001@39211,,${aux}`, 'myself,master'), ''].join('\n');
    expect(run(bulk(t), kind).bytes.toString('latin1')).toBe(bulk(w));
  });
  it('an empty host (a node that does not know its own ip yet) keeps its empty host', () => {
    const t = `${line(':43369@39211', 'myself,master')}\n`;
    expect(run(bulk(t), kind).bytes.toString('latin1')).toBe(bulk(`${line(':7001@39211', 'myself,master')}\n`));
  });
  it('REPLICAS / SLAVES: an array of lines', () => {
    const l = line('127.0.0.1:46541@33247', 'slave');
    const r = run(`*2\r\n${bulk(l)}${bulk(line('127.0.0.1:35721@1', 'slave'))}`, topologyKind('CLUSTER', [b('REPLICAS'), b(ID1)]));
    expect(r.bytes.toString('latin1')).toBe(`*2\r\n${bulk(line('px.local:7004@33247', 'slave'))}${bulk(line('px.local:7002@1', 'slave'))}`);
    expect(r.kinds).toEqual(['replicas']);
  });
});

describe('-MOVED and -ASK', () => {
  it('rewrites the address of a redirect after any command', () => {
    const r = run('-MOVED 12182 127.0.0.1:41657\r\n', undefined);
    expect(r.bytes.toString('latin1')).toBe('-MOVED 12182 px.local:7003\r\n');
    expect(r.kinds).toEqual(['moved']);
    const a = run('-ASK 3999 127.0.0.1:43369\r\n', undefined);
    expect(a.bytes.toString('latin1')).toBe('-ASK 3999 px.local:7001\r\n');
    expect(a.kinds).toEqual(['ask']);
  });
  it('the empty-endpoint form keeps its empty host and maps the port on this node host', () => {
    expect(run('-MOVED 3999 :41657\r\n', undefined).bytes.toString('latin1')).toBe('-MOVED 3999 :7003\r\n');
  });
  it('a "?" host (a node that prefers hostnames naming one that has none) passes unchanged and opens no listener for "?"', () => {
    for (const s of ['-MOVED 12182 ?:41657\r\n', '-ASK 12182 ?:50001\r\n']) {
      const r = run(s, undefined);
      expect(r.bytes.toString('latin1')).toBe(s);
      expect(r.missing).toEqual([]);
      // Not rewritten, so not counted in cluster.rewrites; the tap still counts the error by its prefix.
      expect(r.kinds).toEqual([]);
    }
  });
  it('port 0 (a node with no address, noaddr, still owning the slot: Redis 7.0 says MOVED 0 :0) passes unchanged and opens no listener', () => {
    for (const s of ['-MOVED 0 :0\r\n', '-ASK 17 127.0.0.1:0\r\n']) {
      const r = run(s, undefined);
      expect(r.bytes.toString('latin1')).toBe(s);
      expect(r.missing).toEqual([]);
    }
  });
  it('other errors and replies are the same Buffer, untouched', () => {
    for (const s of ['-ERR unknown command\r\n', '-CLUSTERDOWN The cluster is down\r\n', '-TRYAGAIN Multiple keys request during rehashing of slot\r\n', '+MOVED 1 127.0.0.1:41657\r\n', bulk('MOVED 1 127.0.0.1:41657'), '-MOVED x 127.0.0.1:41657\r\n']) {
      const input = b(s);
      const r = rewriteReply(input, ctx(), undefined);
      expect(r.bytes).toBe(input);
      expect(r.kinds).toEqual([]);
    }
  });
  it('a redirect to an unknown node asks for its listener first', () => {
    const r = run('-MOVED 1 127.0.0.1:50001\r\n', undefined);
    expect(r.missing).toEqual([{ host: '127.0.0.1', port: 50001 }]);
    expect(r.bytes.toString('latin1')).toBe('-MOVED 1 127.0.0.1:50001\r\n');
  });
});

describe('inside EXEC', () => {
  it('rewrites each queued topology reply and redirect by its position; other elements stay byte-exact', () => {
    const slots = `*1\r\n*3\r\n:0\r\n:16383\r\n${slotsNode('127.0.0.1', 43369, ID1, '%0\r\n')}`;
    const slotsOut = `*1\r\n*3\r\n:0\r\n:16383\r\n${slotsNode('px.local', 7001, ID1, '%0\r\n')}`;
    const input = `*4\r\n+OK\r\n${slots}-MOVED 5 127.0.0.1:35721\r\n${bulk('127.0.0.1:43369')}`;
    const r = rewriteReply(b(input), ctx(), undefined, [undefined, 'slots', undefined, undefined]);
    expect(r.bytes.toString('latin1')).toBe(`*4\r\n+OK\r\n${slotsOut}-MOVED 5 px.local:7002\r\n${bulk('127.0.0.1:43369')}`);
    expect(r.kinds).toEqual(['slots', 'moved']);
  });
  it('an EXEC with nothing to rewrite is the same Buffer', () => {
    const input = b(`*2\r\n+OK\r\n:1\r\n`);
    expect(rewriteReply(input, ctx(), undefined, [undefined, undefined]).bytes).toBe(input);
  });
});

describe('as frames of a stream cut anywhere', () => {
  it('a pipeline of replies framed at every split rewrites to the same bytes as whole', () => {
    const replies = ['+OK\r\n', '-MOVED 12182 127.0.0.1:41657\r\n', `*1\r\n*3\r\n:0\r\n:16383\r\n${slotsNode('127.0.0.1', 43369, ID1, '*0\r\n')}`, bulk('x'.repeat(40)), '-ASK 1 :43369\r\n'];
    const kinds = [undefined, undefined, 'slots', undefined, undefined] as const;
    const stream = b(replies.join(''));
    const expected = replies.map((r, i) => rewriteReply(b(r), ctx(), kinds[i]).bytes.toString('latin1')).join('');
    expect(expected).toContain('px.local:7003');
    expect(expected).not.toMatch(/:(41657|43369)\b/);
    for (let cut = 1; cut < stream.length; cut++) {
      const frames: Buffer[] = [];
      const framer = new ReplyFramer({ frame: (f) => frames.push(stream.subarray(f.start, f.end)) });
      framer.push(stream.subarray(0, cut));
      framer.push(stream.subarray(cut));
      const out = frames.map((f, i) => rewriteReply(f, ctx(), kinds[i]).bytes.toString('latin1')).join('');
      expect(out).toBe(expected);
    }
  });
});

describe('parseFrame', () => {
  it('reads every RESP3 type and an attribute before a value', () => {
    const t = parseFrame(b('|1\r\n+a\r\n:1\r\n*7\r\n_\r\n#t\r\n,1.5\r\n(123\r\n!3\r\nerr\r\n~1\r\n$-1\r\n>1\r\n*-1\r\n'));
    expect(t.type).toBe('*');
    expect(t.start).toBe(0);
    expect(t.valueStart).toBe(12);
    expect(t.items!.map((x) => x.type)).toEqual(['_', '#', ',', '(', '!', '~', '>']);
  });
  it('refuses streamed aggregates and trailing bytes', () => {
    expect(() => parseFrame(b('*?\r\n:1\r\n.\r\n'))).toThrow();
    expect(() => parseFrame(b('+OK\r\n+OK\r\n'))).toThrow();
  });
});
