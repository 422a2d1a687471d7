import net from 'node:net';

/**
 * Asks the kernel for a free TCP port on 127.0.0.1 by binding port 0, then releases it.
 * redis-server cannot report the port it bound with `--port 0`, so we pick one ourselves; the
 * short window between close() and redis binding it is why the caller retries on EADDRINUSE.
 */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not read the bound port'))));
    });
  });
}
