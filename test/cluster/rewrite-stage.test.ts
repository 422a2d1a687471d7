import { describe, expect, it } from 'vitest';
import { rewriteStage, type NodeDirectory } from '../../src/cluster/rewrite-stage.js';
import type { RealAddress, RewriteKind } from '../../src/cluster/types.js';
import type { ConnectionContext, ReplyAction, ReplyInfo, RequestInfo } from '../../src/stage/types.js';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');
let seq = 0;
function req(name: string, args: string[] = [], inMulti = false): RequestInfo {
  return { seq: seq++, name, args: args.map(b), firstKey: undefined, bytes: b(''), inMulti };
}
const reply = (request: RequestInfo | undefined, bytes: string, isPush = false): ReplyInfo => ({ request, bytes: b(bytes), isPush });
const slots = (port: number): string => `*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$9\r\n127.0.0.1\r\n:${port}\r\n$2\r\nid\r\n`;
const slotsOut = (port: number): string => `*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$2\r\npx\r\n:${port}\r\n$2\r\nid\r\n`;

function setup(known: Record<number, number>, open?: (a: readonly RealAddress[]) => Promise<void>) {
  const events: string[] = [];
  const directory: NodeDirectory = {
    listenerFor: (host, port) => (host === '127.0.0.1' && known[port] !== undefined ? { host: 'px', port: known[port]! } : undefined),
    open: open ?? (async () => {}),
  };
  const stage = rewriteStage({
    selfHost: '127.0.0.1',
    directory,
    onRewrite: (k: RewriteKind) => events.push(`rewrite ${k}`),
    onUnparsed: (k, why) => events.push(`unparsed ${k}: ${why}`),
    onOpenFailed: (list) => events.push(`open failed ${list.map((a) => a.port).join(',')}`),
  }).create({} as ConnectionContext);
  return { stage, events };
}
const text = (a: ReplyAction | Promise<ReplyAction>): string => {
  const x = a as ReplyAction;
  return x.kind === 'replace' ? x.reply.toString('latin1') : x.kind;
};

describe('the rewrite stage on one connection', () => {
  it('replaces topology replies and redirects, passes everything else and pushes', () => {
    const { stage, events } = setup({ 7001: 9001 });
    expect(text(stage.onReply!(reply(req('CLUSTER', ['slots']), slots(7001))))).toBe(slotsOut(9001));
    expect(text(stage.onReply!(reply(req('GET', ['k']), '-ASK 5 127.0.0.1:7001\r\n')))).toBe('-ASK 5 px:9001\r\n');
    expect(text(stage.onReply!(reply(req('GET', ['k']), '$1\r\nx\r\n')))).toBe('pass');
    expect(text(stage.onReply!(reply(undefined, '>2\r\n$7\r\nmessage\r\n-MOVED 1 127.0.0.1:7001\r\n', true)))).toBe('pass');
    expect(events).toEqual(['rewrite slots', 'rewrite ask']);
  });

  it('MULTI / EXEC: the EXEC array is rewritten by the commands queued, DISCARD forgets them', () => {
    const { stage } = setup({ 7001: 9001 });
    stage.onReply!(reply(req('MULTI'), '+OK\r\n'));
    expect(text(stage.onReply!(reply(req('CLUSTER', ['SLOTS'], true), '+QUEUED\r\n')))).toBe('pass');
    stage.onReply!(reply(req('GET', ['k'], true), '+QUEUED\r\n'));
    // The chain may mark EXEC itself as inMulti: it is recognised by name.
    expect(text(stage.onReply!(reply(req('EXEC', [], true), `*2\r\n${slots(7001)}$1\r\nx\r\n`)))).toBe(`*2\r\n${slotsOut(9001)}$1\r\nx\r\n`);
    stage.onReply!(reply(req('MULTI'), '+OK\r\n'));
    stage.onReply!(reply(req('CLUSTER', ['SLOTS'], true), '+QUEUED\r\n'));
    stage.onReply!(reply(req('DISCARD', [], true), '+OK\r\n'));
    // A later plain array is not taken for an EXEC result.
    expect(text(stage.onReply!(reply(req('LRANGE', ['l', '0', '-1']), `*1\r\n$5\r\nhello\r\n`)))).toBe('pass');
  });

  it('a command refused inside MULTI (a nested MULTI, WATCH) has no element in the EXEC array', () => {
    const { stage } = setup({ 7001: 9001 });
    stage.onReply!(reply(req('MULTI'), '+OK\r\n'));
    stage.onReply!(reply(req('GET', ['k'], true), '+QUEUED\r\n'));
    stage.onReply!(reply(req('WATCH', ['k'], true), '-ERR WATCH inside MULTI is not allowed\r\n'));
    stage.onReply!(reply(req('MULTI', [], true), '-ERR MULTI calls can not be nested\r\n'));
    stage.onReply!(reply(req('CLUSTER', ['SLOTS'], true), '+QUEUED\r\n'));
    expect(text(stage.onReply!(reply(req('EXEC', [], true), `*2\r\n$1\r\nx\r\n${slots(7001)}`)))).toBe(`*2\r\n$1\r\nx\r\n${slotsOut(9001)}`);
  });

  it('RESET ends a transaction, and a MULTI outside one starts afresh: no stale entry shifts the EXEC array', () => {
    const { stage } = setup({ 7001: 9001 });
    stage.onReply!(reply(req('MULTI'), '+OK\r\n'));
    stage.onReply!(reply(req('CLUSTER', ['NODES'], true), '+QUEUED\r\n'));
    stage.onReply!(reply(req('RESET', [], true), '+RESET\r\n'));
    stage.onReply!(reply(req('MULTI'), '+OK\r\n'));
    stage.onReply!(reply(req('GET', ['k'], true), '+QUEUED\r\n'));
    stage.onReply!(reply(req('CLUSTER', ['SLOTS'], true), '+QUEUED\r\n'));
    const value = '$48\r\nid 127.0.0.1:7001@17001 master - 0 0 1 connected\r\n';
    expect(text(stage.onReply!(reply(req('EXEC', [], true), `*2\r\n${value}${slots(7001)}`)))).toBe(`*2\r\n${value}${slotsOut(9001)}`);
    // An EXEC that got no reply (CLIENT REPLY OFF) leaves its queue behind: the next MULTI drops it.
    stage.onReply!(reply(req('MULTI'), '+OK\r\n'));
    stage.onReply!(reply(req('CLUSTER', ['NODES'], true), '+QUEUED\r\n'));
    stage.onReply!(reply(req('MULTI'), '+OK\r\n'));
    stage.onReply!(reply(req('GET', ['k'], true), '+QUEUED\r\n'));
    expect(text(stage.onReply!(reply(req('EXEC', [], true), `*1\r\n${value}`)))).toBe('pass');
  });

  it('a node with no listener: the reply waits (a promise) until it is opened, then goes out rewritten', async () => {
    const known: Record<number, number> = { 7001: 9001 };
    const opened: number[] = [];
    const { stage, events } = setup(known, async (list) => {
      for (const a of list) {
        opened.push(a.port);
        known[a.port] = 9000 + (a.port % 1000);
      }
    });
    const action = stage.onReply!(reply(req('GET', ['k']), '-MOVED 9 127.0.0.1:7042\r\n'));
    expect(action).toBeInstanceOf(Promise);
    expect(text(await action)).toBe('-MOVED 9 px:9042\r\n');
    expect(opened).toEqual([7042]);
    expect(events).toEqual(['rewrite moved']);
  });

  it('a listener that cannot be opened: the reply goes out unchanged and it is said once per reply', async () => {
    const { stage, events } = setup({}, async () => {
      throw new Error('no ports left');
    });
    expect(text(await stage.onReply!(reply(req('GET', ['k']), '-MOVED 9 127.0.0.1:7042\r\n')))).toBe('pass');
    expect(events).toEqual(['open failed 7042']);
  });

  it('a listener that cannot be opened for one node: every other node in the reply still names its listener', async () => {
    const { stage, events } = setup({ 7001: 9001 }, async () => {
      throw new Error('--listen-ports 9001-9001: no free port left');
    });
    const node = (port: number): string => `*3\r\n$9\r\n127.0.0.1\r\n:${port}\r\n$2\r\nid\r\n`;
    const input = `*1\r\n*4\r\n:0\r\n:16383\r\n${node(7042)}${node(7001)}`;
    const out = text(await stage.onReply!(reply(req('CLUSTER', ['SLOTS']), input)));
    expect(out).toBe(`*1\r\n*4\r\n:0\r\n:16383\r\n${node(7042)}*3\r\n$2\r\npx\r\n:9001\r\n$2\r\nid\r\n`);
    expect(events).toEqual(['open failed 7042', 'rewrite slots']);
  });

  it('an unparseable topology reply passes and is reported', () => {
    const { stage, events } = setup({});
    expect(text(stage.onReply!(reply(req('CLUSTER', ['SHARDS']), '*1\r\n:5\r\n')))).toBe('pass');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatch(/^unparsed shards: CLUSTER SHARDS/);
  });
});
