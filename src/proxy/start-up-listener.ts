import { mkdtemp, rm } from 'node:fs/promises';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Endpoint } from '../endpoint.js';
import { listenOn } from '../http/listen.js';

/** A listener of the start-up's own, open while the hop measurement and the warm-up run. */
export interface StartUpListener {
  /** Where the start-up's connections dial. */
  readonly at: Endpoint;
  /** Stops listening at once; connections accepted there live on until they close (not waited for). */
  close(): Promise<void>;
}

/**
 * Listens on a private address of the same kind as `listen`: loopback port 0 for TCP, a socket
 * file in a fresh temporary folder for a unix socket. The hop measurement and the warm-up connect
 * here, so the address clients know is bound only once the proxy is ready: a client that dials it
 * earlier is refused by the kernel, as by a Redis that is still starting, instead of being accepted
 * onto the bare link, closed by the measurement, or zeroed from the counters with the
 * measurement's own connections.
 */
export async function openStartUpListener(server: net.Server, listen: Endpoint): Promise<StartUpListener> {
  if (listen.kind === 'unix') {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'redis-rtt-start-'));
    const at: Endpoint = { kind: 'unix', path: path.join(dir, 's.sock') };
    try {
      await listenOn(server, at, 'start-up listener');
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    return {
      at,
      close: async () => {
        server.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  // IPv6's loopback only for a proxy that listens on it alone: '::' takes IPv4 too, and a host
  // may have IPv6 switched off.
  const host = listen.host === '::1' ? '::1' : '127.0.0.1';
  const bound = await listenOn(server, { kind: 'tcp', host, port: 0 }, 'start-up listener');
  return { at: { kind: 'tcp', host, port: bound.port ?? 0 }, close: async () => void server.close() };
}
