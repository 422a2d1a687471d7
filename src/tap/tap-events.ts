/** Turning a finished request record into the CommandEvent that --record writes. */
import type { RequestFrame } from '../resp/types.js';
import type { CommandEvent } from './counter-types.js';
import { hidesArguments } from '../resp/command-kind.js';
import { firstKeyIndex } from '../resp/first-key.js';
import type { PendingRequest } from './request-ring.js';

/**
 * Keeps what a command event needs beyond the stamps: argument sizes (when the framer collects
 * them) and the keyed hash of the first key (when a hash function is given; firstKeyIndex says
 * which argument that is, and the framer keeps its first 64 bytes). Never for AUTH/HELLO,
 * whose arguments are credentials; argument values themselves are never kept.
 */
export function keepEventDetails(
  rec: PendingRequest,
  frame: RequestFrame,
  name: string,
  keyHash: ((key: Buffer) => string) | undefined,
): void {
  if (hidesArguments(rec.kind)) return;
  if (frame.argSizes !== undefined) rec.argSizes = frame.argSizes.slice();
  if (keyHash === undefined || frame.argc < 2) return;
  const at = firstKeyIndex(name, frame.argc, frame);
  if (at < 0) return;
  const key = frame.head[at]; // a getter that allocates views: only read when hashing
  if (key !== undefined) rec.keyHash = keyHash(key);
}

/**
 * The event of a finished request (times in microseconds on the proxy's monotonic clock, with the
 * nanosecond stamps' precision). A request that never reached Redis (the connection closed while
 * it sat in the up delay line) has `sentUs` = `arrivedUs` and `unsent: true`. `sentUs` and `deliveredUs`
 * are the written stamps under their documented trace names (docs/trace-format.md), kept stable.
 */
export function commandEvent(conn: number, rec: PendingRequest): CommandEvent {
  const event: CommandEvent = {
    type: 'command',
    conn,
    name: rec.name,
    argc: rec.argc,
    bytesUp: rec.requestBytes,
    bytesDown: rec.replyBytes,
    arrivedUs: rec.arrivedNs / 1000,
    sentUs: (rec.upWrittenNs >= 0 ? rec.upWrittenNs : rec.arrivedNs) / 1000,
    reply: rec.replyType === 0 ? 'none' : String.fromCharCode(rec.replyType),
    roundTrip: rec.roundTrip,
  };
  if (rec.upWrittenNs < 0) event.unsent = true;
  if (rec.firstReplyNs >= 0) event.firstReplyUs = rec.firstReplyNs / 1000;
  if (rec.downWrittenNs >= 0) event.deliveredUs = rec.downWrittenNs / 1000;
  if (rec.errorPrefix !== undefined) event.errorPrefix = rec.errorPrefix;
  if (rec.blocking) event.blocking = true;
  if (rec.argSizes !== undefined) event.argSizes = rec.argSizes;
  if (rec.keyHash !== undefined) event.keyHash = rec.keyHash;
  return event;
}
