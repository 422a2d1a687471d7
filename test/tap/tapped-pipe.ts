/**
 * A bare forwarding pipe with a tap on it, for end-to-end tests of the tap with real clients and a
 * real redis-server (no delay line: delivery is the socket write callback). Not the proxy.
 */
import net from 'node:net';
import { realClock } from '../../src/clock.js';
import { StatsCollector } from '../../src/stats/stats-collector.js';
import type { TapEvent } from '../../src/stats/types.js';

export interface TappedPipe {
  port: number;
  collector: StatsCollector;
  events: TapEvent[];
  close(): Promise<void>;
}

export async function startTappedPipe(upstream: net.NetConnectOpts): Promise<TappedPipe> {
  const collector = new StatsCollector();
  const events: TapEvent[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const tap = collector.openConnection({ client: 'test', onEvent: (e) => events.push(e) });
    const redis = net.connect(upstream);
    sockets.add(client).add(redis);
    let upOffset = 0;
    let downOffset = 0;
    client.on('data', (chunk: Buffer) => {
      tap.upChunk(chunk, realClock.nowNs());
      const end = (upOffset += chunk.length);
      redis.write(chunk, () => tap.upWritten(end, realClock.nowNs()));
    });
    redis.on('data', (chunk: Buffer) => {
      tap.downChunk(chunk, realClock.nowNs());
      const end = (downOffset += chunk.length);
      client.write(chunk, () => tap.downWritten(end, realClock.nowNs()));
    });
    const end = (): void => {
      tap.close(realClock.nowNs());
      client.destroy();
      redis.destroy();
    };
    client.on('close', end).on('error', end);
    redis.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    collector,
    events,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
