import { lstat, unlink } from 'node:fs/promises';
import net from 'node:net';
import { formatEndpoint, type Endpoint } from '../endpoint.js';
import { ListenError } from '../errors.js';

/** Where a server ended up bound: port 0 picks a port, so this is read back after listen. */
export interface Bound {
  /** "host:port", or the unix socket's path. */
  address: string;
  /** The address and port bound (a wildcard reads back as itself); undefined on a unix socket. */
  host?: string;
  port?: number;
}

/**
 * Listens on `at` (TCP or a unix socket). A failure rejects with a ListenError that names the flag
 * and the address, and says "address already in use" for EADDRINUSE (its `code` kept, so callers
 * can retry another port or exit 2). Used by every listener: the proxy's, --control and --api.
 */
export async function listenOn(server: net.Server, at: Endpoint, flag: string): Promise<Bound> {
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const why = err.code === 'EADDRINUSE' ? 'address already in use' : err.message;
      reject(new ListenError(`${flag} ${formatEndpoint(at)}: ${why}`, err.code));
    };
    server.once('error', onError);
    const done = (): void => {
      server.off('error', onError);
      resolve();
    };
    if (at.kind === 'unix') server.listen(at.path, done);
    else server.listen({ host: at.host, port: at.port }, done);
  });
  const a = server.address();
  if (a === null || typeof a === 'string') return { address: at.kind === 'unix' ? at.path : String(a) };
  return { address: formatEndpoint({ kind: 'tcp', host: a.address, port: a.port }), host: a.address, port: a.port };
}

/**
 * listenOn, and once more after removing a unix socket file nobody listens on: one left by a killed
 * process blocks its path ("address already in use") although nothing accepts there. `log` is told
 * of the removal. A live socket, or any other file, is kept and the ListenError stands.
 */
export async function listenRemovingStale(server: net.Server, at: Endpoint, flag: string, log: (line: string) => void): Promise<Bound> {
  try {
    return await listenOn(server, at, flag);
  } catch (err) {
    if (!(err instanceof ListenError && err.code === 'EADDRINUSE' && at.kind === 'unix' && (await isStaleSocket(at.path)))) throw err;
    log(`removed stale unix socket ${at.path} (nothing was listening on it)`);
    await unlink(at.path).catch(() => {});
    return listenOn(server, at, flag);
  }
}

/** True when `path` is a socket file nobody accepts on (connect is refused), never for a live one. */
async function isStaleSocket(path: string): Promise<boolean> {
  try {
    if (!(await lstat(path)).isSocket()) return false;
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    const probe = net.connect({ path });
    probe.once('connect', () => {
      probe.destroy();
      resolve(false);
    });
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

