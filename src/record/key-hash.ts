/**
 * Keyed hashes of Redis keys for `--record-keys hashed`: the same key gives the same 16 hex chars within
 * one trace, so an analysis can tell "200 GETs of 200 different keys" from "200 GETs of one key", while
 * the trace alone reveals nothing about the key. A plain SHA-256 would not do: key names are guessable
 * (user:1, user:2, ...) and anyone holding the trace could hash guesses and compare. The HMAC's key is
 * 32 random bytes per trace, kept in memory only and never written.
 */
import * as crypto from 'node:crypto';

/**
 * One-shot SHA-256. crypto.hash() exists from Node 20.12 / 21.7; a named import of it would fail
 * to load on an older Node 20 (engines says >=20), so it is looked up, with createHash behind it.
 */
const oneShot = (crypto as { hash?: (alg: string, data: Buffer, enc: string) => unknown }).hash;
function sha256(data: Buffer): Buffer;
function sha256(data: Buffer, enc: 'hex'): string;
function sha256(data: Buffer, enc?: 'hex'): Buffer | string {
  if (oneShot !== undefined) return oneShot('sha256', data, enc ?? 'buffer') as Buffer | string;
  const h = crypto.createHash('sha256').update(data);
  return enc === 'hex' ? h.digest('hex') : h.digest();
}

/** 16 hex chars = 64 bits: collisions among a session's keys are negligible (~1e-8 at 500k distinct keys). */
export const KEY_HASH_HEX_CHARS = 16;

export type KeyHasher = (key: Buffer) => string;

/** Makes a hasher; pass `secret` only to compare traces on purpose (tests, or two recordings you own). */
export function createKeyHasher(secret: Buffer = crypto.randomBytes(32)): KeyHasher {
  if (secret.length < 16) throw new RangeError('the key-hash secret must be at least 16 bytes');
  // HMAC-SHA256 (RFC 2104) spelled out with two one-shot hashes: the tap calls this once per command on
  // the proxy's event loop, and it is cheaper than a createHmac() object per call (docs/measurements.md). Equal to
  // createHmac('sha256', secret) (a test holds that). Pads are copies: a caller reusing `secret` changes nothing.
  const block = secret.length > 64 ? sha256(secret) : secret;
  const ipad = Buffer.alloc(64, 0x36);
  const opad = Buffer.alloc(64, 0x5c);
  for (let i = 0; i < block.length; i++) {
    ipad[i]! ^= block[i]!;
    opad[i]! ^= block[i]!;
  }
  const hmac = (k: Buffer): string => {
    const inner = sha256(Buffer.concat([ipad, k]));
    return sha256(Buffer.concat([opad, inner]), 'hex').slice(0, KEY_HASH_HEX_CHARS);
  };
  // Applications read the same keys again and again: a map lookup is far cheaper than two SHA-256s.
  // Memory only (the names never leave the process), short keys only, emptied when full.
  const cache = new Map<string, string>();
  return (k: Buffer) => {
    if (k.length > CACHE_KEY_MAX_BYTES) return hmac(k);
    const name = k.toString('latin1');
    let h = cache.get(name);
    if (h === undefined) {
      h = hmac(k);
      if (cache.size >= CACHE_ENTRIES) cache.clear();
      cache.set(name, h);
    }
    return h;
  };
}

const CACHE_KEY_MAX_BYTES = 128;
const CACHE_ENTRIES = 65_536;
