import { describe, expect, it } from 'vitest';
import { RequestFramer } from '../../src/resp/request-framer.js';
import { requestCommandName } from '../../src/resp/request-frame.js';
import type { RequestFrame } from '../../src/resp/types.js';
import { CommandKind } from '../../src/resp/command-kind.js';
import { CommandTable } from '../../src/tap/command-table.js';
import { CommandResolver } from '../../src/tap/command-resolver.js';

function encode(args: string[]): Buffer {
  return Buffer.from(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
}

/** Resolves each request in order on one resolver, as a connection's correlator does. */
function resolveAll(requests: string[][], inMulti = false) {
  const table = new CommandTable();
  const resolver = new CommandResolver(table);
  const out: { key: string; kind: number; blocking: boolean; entry: unknown }[] = [];
  const framer = new RequestFramer({
    frame: (f: RequestFrame) => {
      resolver.resolve(requestCommandName(f), f, inMulti);
      out.push({ key: resolver.key, kind: resolver.kind, blocking: resolver.blocking, entry: resolver.entry });
    },
  });
  framer.push(Buffer.concat(requests.map(encode)));
  return { out, table };
}

describe('CommandResolver: the stats entry and kind of each request', () => {
  it('a repeated plain name gets the same entry each time, as the table would give it', () => {
    const { out, table } = resolveAll([['GET', 'a'], ['GET', 'b'], ['SET', 'a', '1'], ['GET', 'c']]);
    expect(out.map((r) => r.key)).toEqual(['GET', 'GET', 'SET', 'GET']);
    expect(out[0]!.entry).toBe(out[1]!.entry);
    expect(out[3]!.entry).toBe(table.entry('GET', false));
    expect(out.every((r) => !r.blocking)).toBe(true);
  });

  it('a blocking call is flagged each time, never taken from the remembered name', () => {
    const { out } = resolveAll([['BLPOP', 'q', '0'], ['BLPOP', 'q', '0'], ['LPUSH', 'q', 'v'], ['BLPOP', 'q', '0']]);
    expect(out.map((r) => r.blocking)).toEqual([true, true, false, true]);
    expect(out.map((r) => r.key)).toEqual(['BLPOP', 'BLPOP', 'LPUSH', 'BLPOP']);
  });

  it('XREAD with BLOCK records under its own key; without, under XREAD, whatever came before', () => {
    const plain = ['XREAD', 'STREAMS', 's', '0'];
    const blocking = ['XREAD', 'BLOCK', '0', 'STREAMS', 's', '$'];
    const { out } = resolveAll([plain, plain, blocking, plain, blocking]);
    expect(out.map((r) => r.key)).toEqual(['XREAD', 'XREAD', 'XREAD BLOCK', 'XREAD', 'XREAD BLOCK']);
    expect(out[2]!.entry).not.toBe(out[0]!.entry);
    expect(out[4]!.entry).toBe(out[2]!.entry);
  });

  it('inside MULTI a blocking command does not block: counted apart, so "BLPOP" stays the blocking entry', () => {
    const { out, table } = resolveAll([['BLPOP', 'q', '0'], ['XREAD', 'BLOCK', '0', 'STREAMS', 's', '$']], true);
    expect(out[0]).toMatchObject({ key: 'BLPOP QUEUED', blocking: false });
    expect(out[1]).toMatchObject({ key: 'XREAD', blocking: false });
    // Queued first, then a real one: the real one's entry is its own, flagged blocking.
    expect(table.entry('BLPOP', true).blocking).toBe(true);
    expect(table.entry('BLPOP', true)).not.toBe(out[0]!.entry);
  });

  it('CLIENT REPLY reads its argument each time: ON, OFF and SKIP keep their own kinds', () => {
    const { out } = resolveAll([['CLIENT', 'REPLY', 'OFF'], ['CLIENT', 'REPLY', 'ON'], ['CLIENT', 'REPLY', 'SKIP'], ['CLIENT', 'REPLY', 'ON']]);
    expect(new Set(out.map((r) => r.kind)).size).toBe(3);
    expect(out[1]!.kind).toBe(out[3]!.kind);
    expect(out.map((r) => r.key)).toEqual(Array(4).fill('CLIENT REPLY'));
  });

  it('HELLO keeps its kind when repeated', () => {
    const { out } = resolveAll([['HELLO', '3'], ['HELLO', '2']]);
    expect(out.map((r) => r.kind)).toEqual([CommandKind.Hello, CommandKind.Hello]);
  });
});
