import net from 'node:net';
import type { Endpoint } from '../../../src/endpoint.js';
import { fakeServer, type FakeServer } from './fake-server.js';

/** What crossed one connection of a tee, each direction in order. */
export interface TeeRecord {
  /** Bytes the proxy sent towards Redis. */
  up: Buffer[];
  /** Bytes Redis sent back. */
  down: Buffer[];
  done: Promise<void>;
}

/**
 * A recording pass-through between the proxy and a real Redis: lets a test compare, byte for byte,
 * what a client sent with what reached Redis and what Redis sent with what the client got.
 * Closes are passed on gracefully (FIN after the data), so nothing recorded is lost on the way back.
 */
export async function startTee(redis: Endpoint): Promise<{ server: FakeServer; records: TeeRecord[] }> {
  const records: TeeRecord[] = [];
  const server = await fakeServer((fromProxy) => {
    const rec: TeeRecord = { up: [], down: [], done: Promise.resolve() };
    records.push(rec);
    const toRedis = redis.kind === 'tcp' ? net.connect({ host: redis.host, port: redis.port, allowHalfOpen: true }) : net.connect({ path: redis.path, allowHalfOpen: true });
    toRedis.on('error', () => undefined);
    fromProxy.on('data', (d: Buffer) => {
      rec.up.push(d);
      if (!toRedis.destroyed && !toRedis.writableEnded) toRedis.write(d);
    });
    toRedis.on('data', (d: Buffer) => {
      rec.down.push(d);
      if (!fromProxy.writableEnded) fromProxy.write(d);
    });
    fromProxy.on('end', () => toRedis.end());
    let downClosed!: () => void;
    rec.done = new Promise((r) => (downClosed = r));
    toRedis.on('close', () => {
      // Redis is gone (FIN or RST): send the proxy everything it said, then a FIN.
      fromProxy.end();
      downClosed();
    });
    fromProxy.on('close', () => toRedis.destroy());
  });
  return { server, records };
}
