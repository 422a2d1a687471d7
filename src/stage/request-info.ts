/**
 * Builds the RequestInfo a frame stage sees from a request frame's bytes. Done only on framed
 * connections (a frame stage present), so the full argument split costs nothing elsewhere.
 */
import { firstKeyIndex } from '../resp/first-key.js';
import { splitInline } from '../resp/inline-split.js';
import { HeadSlots } from '../resp/request-frame.js';
import type { RequestInfo } from './types.js';

/** Every argument of one whole request (name first), an inline line's as Redis splits it (quotes, escapes). */
export function requestArgs(bytes: Buffer, inline: boolean): Buffer[] {
  if (inline) {
    let end = bytes.length;
    while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
    const args: Buffer[] = [];
    splitInline(bytes, 0, end, INLINE_SLOTS, undefined, args);
    return args;
  }
  const args: Buffer[] = [];
  let i = bytes.indexOf(0x0d);
  const argc = Number(bytes.toString('latin1', 1, i));
  i += 2;
  for (let a = 0; a < argc && i < bytes.length; a++) {
    const lf = bytes.indexOf(0x0d, i);
    const len = Number(bytes.toString('latin1', i + 1, lf));
    const start = lf + 2;
    args.push(bytes.subarray(start, start + len));
    i = start + len + 2;
  }
  return args;
}

// splitInline's head slots, unused here (requestArgs takes every argument whole): the smallest.
const INLINE_SLOTS = new HeadSlots(0, 0);

/**
 * `tapName` is the tap's command name (`OBJECT ENCODING`), which decides where the first key is.
 */
export function buildRequestInfo(
  seq: number,
  bytes: Buffer,
  inline: boolean,
  tapName: string,
  inMulti: boolean,
): RequestInfo {
  const all = requestArgs(bytes, inline);
  const keyAt = all.length > 0 ? firstKeyIndex(tapName, all.length, { head: all }) : -1;
  return {
    seq,
    name: all.length > 0 ? all[0]!.toString('latin1').toUpperCase() : '',
    args: all.slice(1),
    firstKey: keyAt > 0 ? all[keyAt] : undefined,
    bytes,
    inMulti,
  };
}
