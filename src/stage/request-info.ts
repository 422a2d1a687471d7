/**
 * Builds the RequestInfo a frame stage sees from a request frame's bytes. Done only on framed
 * connections (a frame stage present), so the full argument split costs nothing elsewhere.
 */
import { firstKeyIndex } from '../resp/first-key.js';
import type { RequestInfo } from './types.js';

/** Every argument of one whole request (name first). Inline lines split on blanks (no quotes). */
export function requestArgs(bytes: Buffer, inline: boolean): Buffer[] {
  if (inline) {
    let end = bytes.length;
    while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
    return bytes
      .subarray(0, end)
      .toString('latin1')
      .split(/[ \t]+/)
      .filter((s) => s.length > 0)
      .map((s) => Buffer.from(s, 'latin1'));
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
