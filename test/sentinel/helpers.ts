import { readFileSync } from 'node:fs';
import net from 'node:net';
import type tls from 'node:tls';
import { findFreePort, rawCommands } from '../../src/redis/index.js';
import type { PrivateSentinel } from '../../src/redis/private-sentinel.js';
import type { PrivateRedis } from '../../src/redis/private-redis.js';
import type { RedisRttSentinelProxy } from '../../src/sentinel/sentinel-proxy.js';
import { DISCOVERY_CLIENT_NAME } from '../../src/cluster/discover.js';
import { onceItRan } from '../cluster/helpers.js';

/**
 * Connections of TYPE normal or pubsub, on every running node and sentinel, that are not one of the
 * proxy's upstream sockets (CLIENT LIST addr vs /connections upstreamLocalPort). Left out: the
 * asking connection, the proxy's own named discovery connections, the sentinels' own links
 * (`name=sentinel-...`) and replication links (flags S or M).
 */
export async function directClients(setup: PrivateSentinel, proxy: RedisRttSentinelProxy, down: readonly PrivateRedis[] = []): Promise<string[]> {
  const ports = new Set(proxy.connections().map((c) => c.upstreamLocalPort));
  const secure = clientTls(setup);
  const bad: string[] = [];
  for (const p of [...setup.nodes, ...setup.sentinels].filter((x) => !down.includes(x))) {
    const at = { kind: 'tcp' as const, host: '127.0.0.1', port: p.port! };
    const replies = await rawCommands(at, [['CLIENT', 'LIST', 'TYPE', 'normal'], ['CLIENT', 'LIST', 'TYPE', 'pubsub']], 2000, secure);
    const ours = (line: string): boolean =>
      / cmd=client\|list /.test(line) ||
      line.includes(` name=${DISCOVERY_CLIENT_NAME} `) ||
      / name=sentinel-/.test(line) ||
      / flags=\S*[SM]/.test(line) ||
      ports.has(Number(/ addr=\S+:(\d+) /.exec(line)?.[1]));
    for (let line of replies.flatMap((r) => (r.text ?? '').split('\n'))) {
      if (line.trim() === '' || ours(line)) continue;
      // Just connected (a discovery or a sentinel connection before it names itself): look again.
      if (/ cmd=NULL /.test(line)) line = await onceItRan(at, line, secure);
      if (line !== '' && !ours(line)) bad.push(`${p.address}: ${line}`);
    }
  }
  return bad;
}

/** The real address the sentinels name as primary now (the first that answers). */
export async function primaryPort(setup: PrivateSentinel): Promise<number> {
  for (const s of setup.sentinels) {
    const at = { kind: 'tcp' as const, host: '127.0.0.1', port: s.port! };
    const r = await rawCommands(at, [['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', setup.masterName]], 1000, clientTls(setup)).catch(() => []);
    const port = r[0]?.items?.[1]?.text;
    if (port) return Number(port);
  }
  throw new Error('no sentinel answered');
}

/** How rawCommands() reaches the real nodes and sentinels of a TLS setup (`startPrivateSentinel({ tls: true })`). */
export function clientTls(setup: PrivateSentinel): tls.ConnectionOptions | undefined {
  return setup.tls && { ca: readFileSync(setup.tls.caFile) };
}

/** A free port whose next one is free too, for a two-port --listen-ports (other test files take ports meanwhile). */
export async function twoFreePorts(): Promise<number> {
  const free = (port: number): Promise<boolean> =>
    new Promise((resolve) => {
      const server = net.createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (;;) {
    const port = await findFreePort();
    if (port < 65535 && (await free(port + 1))) return port;
  }
}
