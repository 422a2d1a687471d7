import type net from 'node:net';
import { formatEndpoint as describe } from '../endpoint.js';
import { describeFailure } from '../redis/dial.js';
import type { CloseRules } from './close-rules.js';
import type { ConnectionOptions } from './connection-options.js';
import { isRefusal } from './refusal-watch.js';

/**
 * A connection's dial to Redis, from the dial to the close: the connect timer, a dial that fails
 * (a refused one resets the client when a direct one would have been refused) and the upstream's
 * errors after it connected. The close rules are asked for at each event (`closeRules`): a
 * closed connection has let go of them (connection.ts, `parts`).
 */
export class UpstreamDial {
  /** Redis answered the dial (connect, or the TLS handshake). */
  private connected = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    upstream: net.Socket,
    client: net.Socket,
    o: ConnectionOptions,
    acceptedNs: number,
    closeRules: () => CloseRules | undefined,
  ) {
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      const rules = closeRules();
      if (upstream.connecting || !this.connected) {
        o.log(`conn ${o.id}: upstream ${describe(o.upstream)} failed: ${describeFailure(err)}`);
        rules?.destroyStages();
        if (isRefusal(err.code)) {
          // Redis is down. This client was accepted already, so it cannot be refused: a reset when a
          // direct client would have had its refusal (one RTT after its SYN) is the nearest thing;
          // the clients after it are refused by the kernel (refusal-watch.ts).
          o.onRefused?.();
          rules?.resetAt(acceptedNs + o.link.rttNowUs() * 1000);
          return;
        }
        // Nothing reached Redis: tell the client at once rather than after a fake delay.
        client.destroy();
        return;
      }
      // With the reason of a TLS failure: a bad record or an alert from Redis, mid-stream.
      o.log(`conn ${o.id}: upstream ${describeFailure(err)}`);
      rules?.failed(upstream);
    });
    // A plain timer from the dial, not the socket's idle timeout: that one also costs a bound
    // function, a 'timeout' listener and a refresh on every read and write (docs/precision.md).
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.connected) return;
      // A plaintext Redis reads a ClientHello as an unfinished inline command and waits.
      const what = o.upstreamTls && !upstream.connecting ? 'finished no TLS handshake (plaintext Redis?)' : 'did not answer';
      o.log(`conn ${o.id}: upstream ${describe(o.upstream)} ${what} within ${o.connectTimeoutMs} ms`);
      o.upstreamMeter?.noAnswer(upstream);
      upstream.destroy();
      client.destroy();
    }, o.connectTimeoutMs).unref();
    // A client that leaves before Redis answered, having sent nothing, is owed nothing: let both go
    // now, as the timer would, rather than hold two descriptors until it fires (a TCP health check
    // against a stalled Redis left a pair per probe for the whole --connect-timeout).
    client.once('end', () => {
      if (this.connected || client.bytesRead > 0) return;
      this.stop();
      upstream.destroy();
      client.destroy();
    });
    upstream.on(o.upstreamTls ? 'secureConnect' : 'connect', () => {
      this.connected = true;
      this.stop();
    });
  }

  /** No more waiting for the dial (it answered, or the connection closed). */
  stop(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
