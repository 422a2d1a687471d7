import type net from 'node:net';
import type { ConnectionTap } from '../tap/types.js';
import type { ProxiedConnection } from './connection.js';

/**
 * --idle-timeout on one client socket. A function of its own, not made in the listener's accept():
 * its callback outlives the connection on the socket, and there it would hold all of accept()'s
 * variables, the connection and its tap among them (connection.ts, `ProxiedConnection.parts`).
 */
export function closeWhenIdle(socket: net.Socket, conn: ProxiedConnection, tap: ConnectionTap | undefined, idleMs: number, log: (line: string) => void): void {
  const waiting = tap === undefined ? sentSinceLastReply(socket) : () => waitsOnRedis(tap);
  const onIdle = (): void => {
    // A connection waiting on Redis is not idle. setTimeout's callback is a `once` listener: give
    // it again, and the reply's (or the message's) write moves the timer on.
    if (waiting()) return void socket.setTimeout(idleMs, onIdle);
    log(`conn ${conn.id}: idle for ${idleMs} ms (--idle-timeout), closing`);
    conn.destroy();
  };
  socket.setTimeout(idleMs, onIdle);
}

/**
 * A request waiting for its reply (BLPOP, a slow script), or a subscriber or monitor waiting for
 * what Redis sends unasked: Redis's own `timeout` closes neither, and a subscriber closed loses the
 * messages published before it subscribes again.
 */
function waitsOnRedis(tap: ConnectionTap): boolean {
  const info = tap.info();
  return info.outstanding > 0 || info.mode !== 'normal';
}

/**
 * Without a tap (--no-tap) no request is seen: the client's bytes last, with nothing written back
 * since, stand for a request awaiting its reply (a BLPOP; a command cut short reads so too).
 */
function sentSinceLastReply(socket: net.Socket): () => boolean {
  let writtenAtLastRead = -1;
  socket.on('data', () => {
    writtenAtLastRead = socket.bytesWritten;
  });
  return () => socket.bytesWritten === writtenAtLastRead;
}
