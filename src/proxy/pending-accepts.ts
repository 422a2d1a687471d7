import { closeSync } from 'node:fs';
import net from 'node:net';
import { acceptPendingCall } from '../link/native-alarm.js';

/**
 * How many more connections one accept takes in: each costs a set-up (tens of microseconds) that
 * the turn's reads wait for, so a burst of hundreds spreads over a few turns rather than one.
 */
export const MAX_PENDING_ACCEPTS = 64;

/**
 * The connections libuv left waiting after the one it accepted this loop turn. Since libuv 1.45
 * (Node 20) it accepts one per turn, and a proxy's turns hold its clients' traffic: a burst of
 * fifty clients took fifty turns, and the last one's first request waited behind all of them
 * (docs/precision.md, "The 50-client maxima are the accept queue"). Taking the rest in at once is
 * what libuv did before, and what a Go server's accept loop does. Needs the addon
 * (native/timerfd/accepts.c); without it, libuv's pace.
 */
export class PendingAccepts {
  private readonly fds = new Int32Array(MAX_PENDING_ACCEPTS);

  private constructor(
    private readonly acceptPending: (fd: number, out: Int32Array, max: number) => number,
    private readonly allowHalfOpen: boolean,
  ) {}

  /** Undefined where the addon was not built: libuv's one accept per turn stays. */
  static open(allowHalfOpen: boolean): PendingAccepts | undefined {
    const call = acceptPendingCall();
    return call && new PendingAccepts(call, allowHalfOpen);
  }

  /** Accepts what else waits on `server`'s socket now, each handed to `onSocket` as Node's own accept would. */
  drain(server: net.Server, onSocket: (socket: net.Socket) => void): void {
    const fd = listeningFd(server);
    if (fd < 0) return;
    const n = this.acceptPending(fd, this.fds, MAX_PENDING_ACCEPTS);
    let handed = 0;
    try {
      for (; handed < n; handed++) {
        const socketFd = this.fds[handed] as number;
        let socket: net.Socket;
        try {
          socket = new net.Socket({ fd: socketFd, allowHalfOpen: this.allowHalfOpen, readable: true, writable: true });
        } catch {
          closeSync(socketFd); // not a socket Node can take: the client sees its connection close
          continue;
        }
        onSocket(socket);
      }
    } finally {
      // A throw from onSocket leaves no descriptor behind: those not yet made into sockets are closed.
      for (let i = handed + 1; i < n; i++) closeSync(this.fds[i] as number);
    }
  }
}

/** The listening socket's descriptor (Node keeps it on the server's handle), or -1. */
function listeningFd(server: net.Server): number {
  const fd = (server as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
  return typeof fd === 'number' ? fd : -1;
}
