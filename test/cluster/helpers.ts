import net from 'node:net';
import type tls from 'node:tls';
import type { Endpoint } from '../../src/endpoint.js';
import { vi } from 'vitest';
import { encodeCommand, findFreePort, rawCommands, type PrivateCluster } from '../../src/redis/index.js';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { DISCOVERY_CLIENT_NAME } from '../../src/cluster/discover.js';
export { median } from '../../src/numbers/quantiles.js';

/**
 * Client connections on the cluster's nodes that are not one of the proxy's upstream sockets
 * (CLIENT LIST addr vs /connections upstreamLocalPort). The asking connection and the proxy's own
 * named discovery connections are left out.
 */
export async function directClients(cluster: PrivateCluster, proxy: RedisRttClusterProxy): Promise<string[]> {
  // The proxy's upstream ports before and after the lists: one it opened or closed while they were
  // taken is still its own (a brand-new upstream showed up as a direct client once, under load).
  const before = proxy.connections().map((c) => c.upstreamLocalPort);
  const lists = await Promise.all(cluster.nodes.map((n) => rawCommands(n.endpoint, [['CLIENT', 'LIST', 'TYPE', 'normal']], 2000, n.clientTls)));
  const ports = new Set([...before, ...proxy.connections().map((c) => c.upstreamLocalPort)]);
  const ours = (line: string): boolean => / cmd=client\|list /.test(line) || line.includes(` name=${DISCOVERY_CLIENT_NAME} `) || ports.has(Number(/ addr=\S+:(\d+) /.exec(line)?.[1]));
  const bad: string[] = [];
  for (const [i, [r]] of lists.entries()) {
    for (let line of (r?.text ?? '').split('\n')) {
      if (line.trim() === '' || ours(line)) continue;
      // Accepted, no command yet: the proxy's discovery connection (a topology refresh) before its
      // CLIENT SETNAME has run looks like this. Look again once it has run a command, or is gone.
      if (/ cmd=NULL /.test(line)) line = await onceItRan(cluster.nodes[i]!.endpoint, line, cluster.nodes[i]!.clientTls);
      if (line !== '' && !ours(line)) bad.push(`${cluster.nodes[i]!.address}: ${line}`);
    }
  }
  return bad;
}

/**
 * The CLIENT LIST line of the same client once its first command has run ('' once it closed), within
 * a second; the line as it was if that never came. A client that has only just connected has no
 * name yet, whoever it is.
 */
export async function onceItRan(at: Endpoint, line: string, tls?: tls.ConnectionOptions): Promise<string> {
  const id = / ?id=(\d+) /.exec(` ${line}`)?.[1];
  if (id === undefined) return line;
  let now = line;
  await vi
    .waitUntil(
      async () => {
        const [r] = await rawCommands(at, [['CLIENT', 'LIST', 'ID', id]], 2000, tls);
        now = (r?.text ?? '').trim();
        return now === '' || !/ cmd=NULL /.test(now);
      },
      { timeout: 1000, interval: 20 },
    )
    .catch(() => undefined);
  return now;
}

/** A key whose slot each master serves, one per master (found with CLUSTER KEYSLOT on the real nodes). */
export async function keyPerMaster(cluster: PrivateCluster): Promise<{ key: string; masterPort: number }[]> {
  const seed = cluster.nodes[0]!;
  const [slots] = await rawCommands(seed.endpoint, [['CLUSTER', 'SLOTS']], 1000, seed.clientTls);
  const ranges = slots!.items!.map((r) => ({ from: Number(r.items![0]!.text), to: Number(r.items![1]!.text), port: Number(r.items![2]!.items![1]!.text) }));
  const out: { key: string; masterPort: number }[] = [];
  for (const range of ranges) {
    for (let i = 0; ; i++) {
      const key = `k${i}`;
      const [s] = await rawCommands(seed.endpoint, [['CLUSTER', 'KEYSLOT', key]], 1000, seed.clientTls);
      const slot = Number(s!.text);
      if (slot >= range.from && slot <= range.to) {
        out.push({ key, masterPort: range.port });
        break;
      }
    }
  }
  return out;
}

/**
 * Writes `cmds` on an open socket (plain or TLS) and resolves with everything that came back once
 * the last reply arrived (the last command must be PING), or after 5 s; then closes the socket.
 */
export async function untilPong(s: net.Socket, cmds: string[][]): Promise<string> {
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  s.write(Buffer.concat(cmds.map((c) => encodeCommand(c))));
  const text = (): string => Buffer.concat(chunks).toString('latin1');
  // No PONG in 5 s: the caller's assertion shows what did come back.
  await vi.waitUntil(() => text().endsWith('+PONG\r\n'), { timeout: 5000, interval: 10 }).catch(() => undefined);
  s.destroy();
  return text();
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ host: '127.0.0.1', port, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** `count` consecutive free ports on 127.0.0.1: the first of them. */
export async function freeRange(count: number): Promise<number> {
  for (;;) {
    const base = await findFreePort();
    if (base + count > 65535) continue;
    const ok = await Promise.all(Array.from({ length: count }, (_, i) => bindable(base + i)));
    if (ok.every(Boolean)) return base;
  }
}

/**
 * --max-connections 1 on the listener at `port` (127.0.0.1): a client that got its PONG is held
 * (returned, for the caller to close), and the next is closed at once, before any reply.
 */
export async function oneHeldOneRefused(port: number): Promise<net.Socket> {
  const held = net.connect(port, '127.0.0.1').on('error', () => {});
  held.write('PING\r\n');
  await new Promise((r) => held.once('data', r));
  await new Promise<void>((resolve, reject) => {
    const next = net.connect(port, '127.0.0.1').on('error', () => {});
    next.on('data', (d) => reject(new Error(`admitted: ${String(d)}`)));
    next.on('close', () => resolve());
    next.write('PING\r\n');
  });
  return held;
}
