import net from 'node:net';

/** A raw TCP server on 127.0.0.1:0 standing in for Redis: the test decides what each connection does. */
export interface FakeServer {
  readonly host: string;
  readonly port: number;
  readonly address: string;
  /** Every connection accepted so far, in order. */
  readonly sockets: net.Socket[];
  close(): Promise<void>;
}

export async function fakeServer(onConnection: (socket: net.Socket) => void): Promise<FakeServer> {
  const sockets: net.Socket[] = [];
  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (s) => {
    sockets.push(s);
    s.on('error', () => undefined); // resets are part of what these tests provoke
    onConnection(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    address: `127.0.0.1:${port}`,
    sockets,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves with every byte a socket receives, once it sees the end (FIN) or closes. */
export function readAll(s: net.Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks));
    };
    s.once('end', finish);
    s.once('close', finish);
  });
}
