/**
 * The calibration pinger's own process (started by pinger.ts from the build, dist/calibrate/ping-child.js):
 * the client never shares an event loop with the proxy it measures, as a real application would not, and
 * it speaks raw RESP, so no client library's cost is in the figures. One warm JIT and one open connection
 * per target for the life of the process, so a calibration can alternate direct and proxied blocks
 * cheaply and measure neither a cold client nor a connection set-up.
 *
 * Protocol: one JSON PingRequest per stdin line, one JSON PingAnswer per stdout line.
 */
import type net from 'node:net';
import { createInterface } from 'node:readline';
import { formatEndpoint, type Endpoint } from '../endpoint.js';
import { dialRedisReady } from '../redis/dial.js';
import { ReplyFramer } from '../resp/reply-framer.js';
import type { PingAnswer, PingRequest } from './ping-protocol.js';

const PING = Buffer.from('*1\r\n$4\r\nPING\r\n');

/** One connection, and a resolver for the reply the next whole frame completes. */
interface Conn {
  socket: net.Socket;
  replied: (() => void) | undefined;
  failed: ((err: Error) => void) | undefined;
}

const conns = new Map<string, Promise<Conn>>();

function connect(req: PingRequest): Promise<Conn> {
  const key = formatEndpoint(req.at);
  let c = conns.get(key);
  if (c) return c;
  c = open(req.at, req).catch((err: unknown) => {
    conns.delete(key);
    throw err;
  });
  conns.set(key, c);
  return c;
}

async function open(at: Endpoint, req: PingRequest): Promise<Conn> {
  const socket = await dialRedisReady(at, { tls: req.tls }, 5000);
  const conn: Conn = { socket, replied: undefined, failed: undefined };
  const framer = new ReplyFramer({
    frame: () => conn.replied?.(),
    desync: (_offset, reason) => conn.failed?.(new Error(`not a RESP reply: ${reason}`)),
  });
  socket.on('data', (chunk: Buffer) => framer.push(chunk));
  socket.on('close', () => conn.failed?.(new Error('connection closed')));
  socket.on('error', (err) => conn.failed?.(err));
  return conn;
}

/** `n` sequential requests after `warmup` on the target's connection: round trips in microseconds. */
async function block(req: PingRequest): Promise<number[]> {
  const conn = await connect(req);
  const payload = req.request ? Buffer.from(req.request, 'base64') : PING;
  const out: number[] = [];
  for (let i = 0; i < req.n + req.warmup; i++) {
    const t0 = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) => {
      conn.replied = resolve;
      conn.failed = reject;
      conn.socket.write(payload);
    });
    if (i >= req.warmup) out.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  conn.replied = undefined;
  conn.failed = undefined;
  return out;
}

// Ctrl-C reaches the whole process group: calibrate decides when the pinger stops (it stops after the
// block in flight and reports the rows that finished), and closes stdin, which ends this process.
process.on('SIGINT', () => {});
createInterface({ input: process.stdin }).on('close', () => process.exit(0)).on('line', (line) => {
  const req = JSON.parse(line) as PingRequest;
  const answer = (a: PingAnswer): boolean => process.stdout.write(JSON.stringify(a) + '\n');
  block(req).then(
    (rtts) => answer({ id: req.id, rtts }),
    (err: unknown) => answer({ id: req.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
