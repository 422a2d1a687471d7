import { describe, expect, it } from 'vitest';
import { firstKeyIndex } from '../../src/resp/first-key.js';

/** name as the tap names it, then the request's arguments as sent (argument 0 = the command). */
const at = (name: string, ...args: string[]): number => {
  const head = args.map((a) => Buffer.from(a));
  return firstKeyIndex(name, args.length, { head });
};

describe('firstKeyIndex', () => {
  it('is the argument after the name for ordinary keyed commands', () => {
    expect(at('GET', 'get', 'user:1')).toBe(1);
    expect(at('HSET', 'HSET', 'h', 'f', 'v')).toBe(1);
    expect(at('ZUNIONSTORE', 'ZUNIONSTORE', 'dest', '2', 'a', 'b')).toBe(1);
  });

  it('skips script bodies, SHAs and function names: the key follows numkeys', () => {
    expect(at('EVAL', 'EVAL', 'return 1', '1', 'k')).toBe(3);
    expect(at('EVALSHA', 'EVALSHA', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db', '2', 'k1', 'k2')).toBe(3);
    expect(at('FCALL', 'FCALL', 'myfunc', '1', 'k', 'arg')).toBe(3);
    expect(at('EVAL', 'EVAL', 'return 1', '0')).toBe(-1);
    expect(at('EVAL', 'EVAL', 'return 1', '0', 'not-a-key-but-an-arg')).toBe(-1);
    expect(at('EVAL', 'EVAL', 'return 1', 'x', 'k')).toBe(-1);
  });

  it('follows numkeys after the timeout or as the first argument', () => {
    expect(at('BLMPOP', 'BLMPOP', '0', '2', 'l1', 'l2', 'LEFT')).toBe(3);
    expect(at('ZUNION', 'ZUNION', '2', 'z1', 'z2')).toBe(2);
    expect(at('LMPOP', 'LMPOP', '1', 'l', 'RIGHT')).toBe(2);
  });

  it('finds the first stream after STREAMS, within the arguments the framer kept', () => {
    expect(at('XREAD', 'XREAD', 'COUNT', '2', 'streams', 's1', 's2', '0', '0')).toBe(4);
    expect(at('XREADGROUP', 'XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>')).toBe(5);
    expect(at('XREAD', 'XREAD', 'BLOCK', '0')).toBe(-1);
  });

  it('has none for commands without keys, and a key after the subcommand only where there is one', () => {
    for (const n of ['PING', 'PUBLISH', 'KEYS', 'SCAN', 'SELECT', 'SUBSCRIBE', 'ECHO']) expect(at(n, n, 'x')).toBe(-1);
    expect(at('OBJECT ENCODING', 'OBJECT', 'ENCODING', 'k')).toBe(2);
    expect(at('MEMORY USAGE', 'MEMORY', 'USAGE', 'k')).toBe(2);
    expect(at('CLIENT SETNAME', 'CLIENT', 'SETNAME', 'name')).toBe(-1);
    expect(at('CONFIG GET', 'CONFIG', 'GET', 'maxmemory')).toBe(-1);
  });

  it("skips BITOP's operation and PFDEBUG's subcommand: the key follows them", () => {
    // COMMAND INFO gives both first-key position 2; the operation as the key made every BITOP AND one key.
    expect(at('BITOP', 'BITOP', 'AND', 'dest', 'src1', 'src2')).toBe(2);
    expect(at('BITOP', 'BITOP', 'NOT', 'dest', 'src')).toBe(2);
    expect(at('PFDEBUG', 'PFDEBUG', 'GETREG', 'hll')).toBe(2);
    expect(at('BITOP', 'BITOP', 'AND')).toBe(-1);
  });

  it('has none when the request stops before the key', () => {
    expect(at('GET', 'GET')).toBe(-1);
    expect(at('OBJECT ENCODING', 'OBJECT', 'ENCODING')).toBe(-1);
  });
});
