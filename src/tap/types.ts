/**
 * The tap watches one connection's two byte streams on the side. The proxy calls it at four
 * moments per chunk; the tap never touches sockets and never changes a byte.
 */
import type { ReplyModes } from '../resp/reply-modes.js';
import type { RequestModes } from '../resp/request-modes.js';
import type { FramedTap } from '../stage/types.js';
import type { ConnectionInfo, Counters } from './counter-types.js';

export interface ConnectionTap {
  /** A chunk arrived from the client at `nowNs` (before the up delay). */
  upChunk(chunk: Buffer, nowNs: number): void;
  /** The up stream's bytes up to `endOffset` (absolute) were written to Redis at `nowNs`. */
  upWritten(endOffset: number, nowNs: number): void;
  /** A chunk arrived from Redis at `nowNs` (before the down delay). */
  downChunk(chunk: Buffer, nowNs: number): void;
  /** The down stream's bytes up to `endOffset` were written to the client at `nowNs`. */
  downWritten(endOffset: number, nowNs: number): void;
  /** The connection ended; requests still outstanding are closed without a reply. */
  close(nowNs: number): void;
  info(): ConnectionInfo;
  /** Requests that arrived and whose replies have not all reached the client yet. */
  readonly outstanding: number;
  // Where framing can start when a frame stage comes to a live connection (connection.ts):
  /** The tap still follows both streams' frames (not desynced, not degraded). */
  readonly framable: boolean;
  /** Client bytes seen so far. */
  readonly upOffset: number;
  /** The client bytes seen so far end on a frame boundary (no partial request). */
  readonly upAtFrameEnd: boolean;
  /** Redis's bytes seen so far end on a frame boundary (no partial reply). */
  readonly downAtFrameEnd: boolean;
  /** Requests seen so far, as a mark for answeredBefore(). */
  readonly requestMark: number;
  /** Every request before `mark` got all its reply frames. */
  answeredBefore(mark: number): boolean;
  /** The modes followed so far, for the frame chain to go on from. */
  readonly requestModes: RequestModes;
  readonly replyModes: ReplyModes;
  counters(): Counters;
  /**
   * From now on the frame chain frames and matches this connection, and the tap reads what it
   * found. `arrivalNs`: when a chunk really arrived, if not when the chain was handed it.
   */
  framed(arrivalNs?: () => number): FramedTap;
}
