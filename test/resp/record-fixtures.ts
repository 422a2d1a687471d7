import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { vi } from 'vitest';
import { startPrivateRedis } from '../../src/redis/index.js';
import { parseAll, summarizeReply, type ExpectedReply } from './reference-parser.js';
import type { ExpectedRequest } from './fixture-sessions.js';
import { buildRequests, encode, SESSIONS, type RawPart, type Session } from './fixture-sessions.js';
import { SYNTHETIC } from './fixture-synthetic.js';

/**
 * Records the RESP fixtures: each session runs against a private redis-server through a
 * pass-through that saves both directions byte for byte (NAME.up.resp, NAME.down.resp). The
 * expected frames (NAME.expected.json) come from what the script sent (up) and from the
 * reference parser (down). Run: RECORD_FIXTURES=1 npx vitest run test/resp/record
 */

/** After a session's sockets close, the pass-through's last chunks land within this: nothing comes later. */
const LAST_CHUNKS_MS = 50;

export interface Expected {
  up: ExpectedRequest[];
  down: ExpectedReply[];
}

export async function recordAll(dir: string): Promise<string[]> {
  const redis = await startPrivateRedis({ transport: 'unix' });
  const written: string[] = [];
  try {
    for (const session of SESSIONS) {
      const { up, down, upFrames } = await recordSession(redis.socketPath!, session);
      save(dir, session.name, up, down, upFrames);
      written.push(session.name);
    }
  } finally {
    await redis.stop();
  }
  for (const s of SYNTHETIC) {
    save(dir, s.name, s.up, s.down, s.upFrames);
    written.push(s.name);
  }
  return written;
}

function save(dir: string, name: string, up: Buffer, down: Buffer, upFrames: ExpectedRequest[]): void {
  const expected: Expected = { up: upFrames, down: parseAll(down).map((v) => summarizeReply(v)) };
  writeFileSync(join(dir, `${name}.up.resp`), up);
  writeFileSync(join(dir, `${name}.down.resp`), down);
  writeFileSync(join(dir, `${name}.expected.json`), `${JSON.stringify(expected, null, 1)}\n`);
}

async function recordSession(socketPath: string, session: Session) {
  const upChunks: Buffer[] = [];
  const downChunks: Buffer[] = [];
  const server = net.createServer((client) => {
    const upstream = net.createConnection(socketPath);
    client.on('data', (d) => {
      upChunks.push(d);
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      downChunks.push(d);
      client.write(d);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const main = await connect({ port, host: '127.0.0.1' });
  const side = await connect({ path: socketPath });
  const upFrames: ExpectedRequest[] = [];
  let upBytes = 0;
  try {
    for (const step of session.steps) {
      if (step.side) await side.send(encode(step.side), step.side.length);
      const parts: RawPart[] = [...(step.send ?? []).map((cmd) => ({ cmd })), ...(step.raw ?? [])];
      const built = buildRequests(parts, upBytes);
      upFrames.push(...built.frames);
      upBytes += built.bytes.length;
      if (built.bytes.length > 0) main.write(built.bytes);
      await main.waitFrames(step.expect ?? built.frames.length);
    }
  } finally {
    main.close();
    side.close();
    await new Promise((r) => server.close(r));
  }
  await sleep(LAST_CHUNKS_MS);
  return { up: Buffer.concat(upChunks), down: Buffer.concat(downChunks), upFrames };
}

interface Conn {
  write(b: Buffer): void;
  send(b: Buffer, replies: number): Promise<void>;
  waitFrames(n: number): Promise<void>;
  close(): void;
}

/** A raw client that counts complete top-level frames with the reference parser. */
async function connect(opts: net.NetConnectOpts): Promise<Conn> {
  const sock = net.createConnection(opts);
  await new Promise((r, j) => sock.once('connect', r).once('error', j));
  let received = Buffer.alloc(0);
  let waited = 0;
  const frames = () => parseAll(received).length;
  const waitFrames = async (n: number) => {
    waited += n;
    await vi.waitUntil(() => frames() >= waited, { timeout: 5000, interval: 5 });
  };
  sock.on('data', (d) => (received = Buffer.concat([received, d])));
  return {
    write: (b) => sock.write(b),
    async send(b, replies) {
      sock.write(b);
      await waitFrames(replies);
    },
    waitFrames,
    close: () => sock.destroy(),
  };
}

