import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { findFreePort, rawCommands, startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { generateTlsFiles, type TlsFiles } from '../../src/redis/tls-certs.js';
import { rawField } from '../../src/redis/raw-command.js';
import { startPrivateSentinel, type PrivateSentinel } from '../../src/redis/private-sentinel.js';
import type { RedisRttSentinelProxy } from '../../src/sentinel/sentinel-proxy.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';
import { twoFreePorts } from './helpers.js';

// One sentinel (the seed, on --listen), a primary and a replica, each with one of the two ports of
// --listen-ports. A replica added later has no port left: every reply that names it tries to open
// a listener for it again.

let setup: PrivateSentinel;
let proxy: RedisRttSentinelProxy;
let extra: PrivateRedis;
const lines: string[] = [];

beforeAll(async () => {
  setup = await startPrivateSentinel({ replicas: 1, sentinels: 1 });
  const port = await twoFreePorts();
  proxy = await startSentinelProxy({
    sentinels: [...setup.sentinelAddresses],
    sentinelMaster: setup.masterName,
    listenPorts: `${port}-${port + 1}`,
    log: (line) => lines.push(line),
  });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await extra?.stop();
  await setup?.stop();
});

it('a node that cannot get a listener is named once, not once per reply that names it', async () => {
  const primary = setup.nodes[0]!;
  extra = await startPrivateRedis();
  await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: extra.port! }, [['REPLICAOF', '127.0.0.1', String(primary.port)]]);
  const sentinel = { kind: 'tcp' as const, host: '127.0.0.1', port: setup.sentinels[0]!.port! };
  // The sentinel learns of a replica from the primary's INFO, which it reads every 10 s.
  await vi.waitFor(
    async () => {
      const [replicas] = await rawCommands(sentinel, [['SENTINEL', 'REPLICAS', setup.masterName]], 2000);
      expect(replicas?.items).toHaveLength(2);
    },
    { timeout: 25_000, interval: 500 },
  );
  const at = { kind: 'tcp' as const, host: proxy.host!, port: proxy.port! };
  let replicas: Awaited<ReturnType<typeof rawCommands>>[number] | undefined;
  for (let i = 0; i < 5; i++) [replicas] = await rawCommands(at, [['SENTINEL', 'REPLICAS', setup.masterName]], 5000);
  // The replica with no port keeps its real address; the rest of the reply still names listeners (it was passed
  // whole, sending clients to the primary and the first replica directly).
  const listen = (p: PrivateRedis): string => String(proxy.nodes().find((n) => n.upstream === p.address)!.listen.split(':')[1]);
  const ports = (replicas?.items ?? []).map((e) => [rawField(e, 'port'), rawField(e, 'master-port')]);
  expect(ports.sort()).toEqual([[listen(setup.nodes[1]!), listen(primary)], [String(extra.port), listen(primary)]].sort());
  const said = lines.filter((l) => l.startsWith('could not open a listener'));
  expect(said).toEqual([expect.stringMatching(new RegExp(`^could not open a listener for 127\\.0\\.0\\.1:${extra.port}: .*no free port left`))]);
}, 40_000);

/** Two ports nothing listens on, apart. */
async function twoDownPorts(): Promise<[number, number]> {
  const first = await findFreePort();
  for (;;) {
    const second = await findFreePort();
    if (second !== first) return [first, second];
  }
}

/** A server on 127.0.0.1 whose sockets are all destroyed by close(). */
async function serve<T extends net.Server>(server: T): Promise<{ at: string; close: () => void }> {
  const sockets: net.Socket[] = [];
  server.on(server instanceof tls.Server ? 'secureConnection' : 'connection', (s: net.Socket) => sockets.push(s.on('error', () => undefined)));
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const at = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return { at, close: () => (sockets.forEach((s) => s.destroy()), server.close()) };
}

const startError = (options: Parameters<typeof startSentinelProxy>[0]): Promise<unknown> =>
  startSentinelProxy({ ...options, log: () => undefined }).then(
    async (p) => (await p.close(), 'started'),
    (e: unknown) => e,
  );

it('an unknown master name with two given sentinels down names both: they may be the ones that monitor it', async () => {
  // Answers the proxy's reading as a sentinel that monitors `other` only.
  const other = await serve(
    net.createServer((s) => {
      let asked = '';
      s.on('data', (d: Buffer) => {
        if (!(asked += d.toString()).includes('MASTERS')) return;
        s.end('+OK\r\n*-1\r\n-ERR No such master with that name\r\n-ERR No such master with that name\r\n*1\r\n*2\r\n$4\r\nname\r\n$5\r\nother\r\n');
      });
    }),
  );
  try {
    const down = await twoDownPorts();
    const err = await startError({ sentinels: [...down.map((p) => `127.0.0.1:${p}`), other.at], sentinelMaster: 'mymaster' });
    expect(err).toBeInstanceOf(ConfigError);
    // The sentinel that answered was named alone: the user was told no sentinel monitors mymaster.
    const refused = down.map((p) => `sentinel 127.0.0.1:${p}: connect ECONNREFUSED 127.0.0.1:${p}`);
    expect((err as Error).message).toBe(
      `--sentinel-master: invalid value "mymaster"; expected a master name the sentinels monitor (${other.at} monitors other; ` +
        `did not answer, so may monitor it: ${refused.join('; ')})`,
    );
  } finally {
    other.close();
  }
});

it('with --upstream-tls, two sentinels whose certificates another CA signed and one down: the flag, and every one named', async () => {
  const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'redis-rtt-sentinel-open-test-')));
  const [ours, theirs] = dirs.map((d) => generateTlsFiles(d)) as [TlsFiles, TlsFiles];
  const pair = { cert: readFileSync(theirs.certFile), key: readFileSync(theirs.keyFile) };
  const servers = await Promise.all([0, 1].map(() => serve(tls.createServer(pair))));
  try {
    const down = await findFreePort();
    const err = await startError({ sentinels: [...servers.map((x) => x.at), `127.0.0.1:${down}`], sentinelMaster: 'mymaster', upstreamTls: { ca: ours.caFile } });
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).toMatch(
      new RegExp(`^--upstream-ca: invalid value ".*"; expected a CA that signed the upstream's certificate \\(sentinel ${servers[0]!.at}: UNABLE_TO_VERIFY_LEAF_SIGNATURE`),
    );
    // The first certificate failure was said alone: the second sentinel's and the one down were not.
    expect(message).toContain(`; the other sentinels that failed: sentinel ${servers[1]!.at}: UNABLE_TO_VERIFY_LEAF_SIGNATURE`);
    expect(message).toMatch(new RegExp(`; sentinel 127\\.0\\.0\\.1:${down}: (connect )?ECONNREFUSED`));
  } finally {
    for (const x of servers) x.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});
