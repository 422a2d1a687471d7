/**
 * The tap watches one connection's two byte streams on the side. The proxy calls it at four
 * moments per chunk; the tap never touches sockets and never changes a byte.
 */
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
  counters(): Counters;
}
