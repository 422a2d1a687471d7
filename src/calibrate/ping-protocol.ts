import type { Endpoint } from '../endpoint.js';

/** TLS options as JSON can carry them (PEM text, no Buffers): a TLS upstream measured directly. */
export interface PingTls {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
  rejectUnauthorized?: boolean;
}

/** One line to the ping process: a block of `n` requests after `warmup`, on the connection to `at`. */
export interface PingRequest {
  id: number;
  at: Endpoint;
  tls?: PingTls;
  n: number;
  warmup: number;
  /** One RESP command, base64; PING when absent. */
  request?: string;
}

/** One line back: the block's round trips in microseconds, or why it failed. */
export type PingAnswer = { id: number; rtts: number[] } | { id: number; error: string };
