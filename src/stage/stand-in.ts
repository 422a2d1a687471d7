/**
 * What Redis reads in place of a request a frame stage answered for it. Redis must still see
 * something there: what lasts one command (CLIENT REPLY SKIP, CLIENT CACHING, ASKING) ends at a
 * request, and an EXEC answered for Redis must end its transaction.
 */

/** An empty line: nothing runs, no reply, no MONITOR line. */
export const EMPTY_LINE = Buffer.from('\r\n');
/** For an EXEC: Redis discards the transaction, as it does one whose EXEC it rejects. */
export const DISCARD = Buffer.from('*1\r\n$7\r\nDISCARD\r\n');

/** `wire` (the blank lines before a request, then its `requestBytes`) with the request replaced by `standIn`. */
export function withStandIn(wire: Buffer, requestBytes: number, standIn: Buffer): Buffer {
  const gap = wire.length - requestBytes;
  return gap === 0 ? standIn : Buffer.concat([wire.subarray(0, gap), standIn]);
}
