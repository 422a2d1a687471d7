import net from 'node:net';

export interface BarePipe {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The floor a Node proxy can reach on this machine: each client piped to its own upstream
 * connection with stream.pipe(), nothing else (no delay line, no tap, no stats). `overhead`
 * measures it beside redis-rtt so the proxy's cost reads against Node's, not only against direct.
 */
export async function startBarePipe(upstream: { host: string; port: number }): Promise<BarePipe> {
  const live = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true }, (client) => {
    const up = net.connect({ host: upstream.host, port: upstream.port, noDelay: true });
    live.add(client).add(up);
    client.pipe(up);
    up.pipe(client);
    const drop = (): void => {
      client.destroy();
      up.destroy();
      live.delete(client);
      live.delete(up);
    };
    client.on('error', drop).on('close', drop);
    up.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of live) s.destroy();
        server.close(() => resolve());
      }),
  };
}
