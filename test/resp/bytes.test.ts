import { describe, expect, it } from 'vitest';
import { Byte } from '../../src/resp/bytes.js';
import { RespType } from '../../src/resp/types.js';

describe('Byte', () => {
  it('spells every RESP type byte as RespType does', () => {
    expect([
      Byte.Plus, Byte.Error, Byte.Colon, Byte.Dollar, Byte.Star, Byte.Underscore, Byte.Hash, Byte.Comma, Byte.Paren,
      Byte.Bang, Byte.Equals, Byte.Percent, Byte.Tilde, Byte.Pipe, Byte.Push,
    ]).toEqual([
      RespType.SimpleString, RespType.Error, RespType.Integer, RespType.BulkString, RespType.Array, RespType.Null,
      RespType.Boolean, RespType.Double, RespType.BigNumber, RespType.BlobError, RespType.VerbatimString, RespType.Map,
      RespType.Set, RespType.Attribute, RespType.Push,
    ]);
  });
});

describe('HotLimit', () => {
  it('repeats the limits of limits.ts', async () => {
    const { HotLimit } = await import('../../src/resp/bytes.js');
    const limits = await import('../../src/resp/limits.js');
    expect([HotLimit.MaxArgs, HotLimit.ShortText, HotLimit.NameMaxBytes])
      .toEqual([limits.MULTIBULK_MAX_ARGS, limits.SHORT_TEXT_MAX_BYTES, limits.NAME_MAX_BYTES]);
  });
});
