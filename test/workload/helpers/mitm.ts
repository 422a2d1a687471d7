import net from 'node:net';

export type Sabotage = 'drop' | 'duplicate';

/**
 * A raw TCP man-in-the-middle between the driver and Redis that drops or duplicates one reply:
 * the first integer frame equal to `frame` in a server->client chunk made only of integer frames
 * (INCR replies, alone in a seq loop or back to back after a pipeline). Handshake and admin
 * replies never consist of integer frames only, so they pass untouched.
 */
export async function startMitm(
  upstreamPort: number,
  frame: string,
  sabotage: Sabotage,
): Promise<{ port: number; hits: () => number; close: () => Promise<void> }> {
  const target = frame;
  let hits = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: upstreamPort });
    sockets.add(client).add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d: Buffer) => {
      const text = d.toString('latin1');
      if (hits === 0 && /^(:\d+\r\n)+$/.test(text)) {
        const frames = text.match(/:\d+\r\n/g) as string[];
        const at = frames.indexOf(target);
        if (at >= 0) {
          hits++;
          frames.splice(at, 1, ...(sabotage === 'duplicate' ? [target, target] : []));
          client.write(Buffer.from(frames.join(''), 'latin1'));
          return;
        }
      }
      client.write(d);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
