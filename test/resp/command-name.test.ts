import { describe, expect, it } from 'vitest';
import {
  commandName, learnedCommandNames, learnProvenName, MAX_LEARNED_NAMES, moduleCandidate, UNKNOWN_COMMAND_NAME,
} from '../../src/resp/command-name.js';

const name = (...args: string[]) => commandName(args.map((a) => Buffer.from(a, 'latin1')), args.length);

describe('commandName', () => {
  it('upper-cases known commands in any case and never includes a value', () => {
    expect(name('get', 'key')).toBe('GET');
    expect(name('SeT', 'key', 'value')).toBe('SET');
    expect(name('EVALSHA', 'abc', '0')).toBe('EVALSHA');
    expect(name('restore-asking')).toBe('RESTORE-ASKING');
  });

  it('adds the subcommand of container commands', () => {
    expect(name('client', 'tracking', 'on')).toBe('CLIENT TRACKING');
    expect(name('CONFIG', 'get', 'maxmemory')).toBe('CONFIG GET');
    expect(name('xinfo', 'STREAM', 's')).toBe('XINFO STREAM');
    expect(name('object', 'encoding', 'k')).toBe('OBJECT ENCODING');
    expect(name('debug', 'sleep', '0')).toBe('DEBUG SLEEP');
    // A Sentinel's own command, which a data node's COMMAND LIST does not have.
    expect(name('SENTINEL', 'get-master-addr-by-name', 'mymaster')).toBe('SENTINEL GET-MASTER-ADDR-BY-NAME');
    expect(name('CLIENT', 'no-evict', 'on')).toBe('CLIENT NO-EVICT');
    expect(name('CLIENT')).toBe('CLIENT');
    expect(name('CLIENT', 'no-such-thing')).toBe(`CLIENT ${UNKNOWN_COMMAND_NAME}`);
    expect(name('CLIENT', '')).toBe(`CLIENT ${UNKNOWN_COMMAND_NAME}`);
    expect(name('CLIENT', 'x'.repeat(33))).toBe(`CLIENT ${UNKNOWN_COMMAND_NAME}`);
  });

  it('never echoes garbage: empty, too long or non-name bytes read ?', () => {
    expect(name('')).toBe('?');
    expect(name('x'.repeat(33))).toBe('?');
    expect(name('GE T')).toBe('?');
    expect(name('GET\x00')).toBe('?');
    expect(name('caf\xe9')).toBe('?');
    expect(name('"quoted"')).toBe('?');
    expect(commandName([], 0)).toBe('?');
    expect(commandName([], 2)).toBe('?');
  });

  it('reads a cut head as it is', () => {
    expect(commandName([Buffer.from('CLIENT')], 3)).toBe('CLIENT ?');
  });

  it('names listed module commands; learns other dotted words only when Redis proved them, up to MAX_LEARNED_NAMES', () => {
    expect(name('ft.search', 'idx', '*')).toBe('FT.SEARCH');
    expect(name('JSON.SET', 'k', '$', '1')).toBe('JSON.SET');
    // A dotted word seen (a password typed at a prompt) is not a name until a reply proves it.
    expect(name('mypass.word')).toBe('?');
    expect(name('mypass.word')).toBe('?');
    expect(moduleCandidate(Buffer.from('mypass.word'))).toBe('MYPASS.WORD');
    expect(moduleCandidate(Buffer.from('nodot'))).toBeUndefined();
    expect(moduleCandidate(Buffer.from('bad word.x'))).toBeUndefined();
    const before = learnedCommandNames();
    learnProvenName('ACME.PING');
    expect(name('acme.ping')).toBe('ACME.PING');
    for (let i = 0; i < MAX_LEARNED_NAMES + 50; i++) learnProvenName(`X.CMD${i}`);
    expect(learnedCommandNames()).toBe(MAX_LEARNED_NAMES);
    expect(name(`x.cmd${MAX_LEARNED_NAMES + 10}`)).toBe('?');
    expect(name('x.cmd0')).toBe(before + 1 < MAX_LEARNED_NAMES ? 'X.CMD0' : '?');
    expect(name('FT.SEARCH')).toBe('FT.SEARCH');
    expect(name('get')).toBe('GET');
  });
});
