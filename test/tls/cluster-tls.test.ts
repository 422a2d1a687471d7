import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { ConfigError } from '../../src/errors.js';
import { renderPrometheus as renderMetrics } from '../../src/stats/prometheus.js';
import { rawCommands, startPrivateCluster, startPrivateRedis, type PrivateCluster } from '../../src/redis/index.js';
import { directClients, keyPerMaster, untilPong } from '../cluster/helpers.js';
import { runCli, startCliProxy } from '../hardening/helpers/cli-proxy.js';

const run = promisify(execFile);

// One TLS-only cluster (3 masters + 3 replicas, --port 0 --tls-port, --tls-cluster yes) for the
// file, and two proxies on it: plaintext clients (`plain`) and TLS clients (`secure`, --cluster
// auto, so auto detection over TLS is what starts it).
let cluster: PrivateCluster;
let plain: RedisRttClusterProxy;
let secure: RedisRttClusterProxy;
let proxyCaPem: Buffer;
let proxyCa: string;
beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 1, tls: true });
  const upstreamTls = { ca: cluster.tls!.caFile };
  const started = await Promise.all([
    startProxy({ upstream: cluster.address, cluster: 'on', upstreamTls, log: () => {} }),
    startProxy({ upstream: cluster.address, cluster: 'auto', upstreamTls, listenTls: true, log: () => {} }),
  ]);
  [plain, secure] = started as [RedisRttClusterProxy, RedisRttClusterProxy];
  proxyCa = secure.tlsCaFile!;
  proxyCaPem = readFileSync(proxyCa);
}, 60_000);
afterAll(async () => {
  await Promise.all([plain?.close(), secure?.close()]);
  await cluster?.stop();
});

function realPorts(): RegExp {
  return new RegExp(`\\b(${cluster.nodes.map((n) => n.port).join('|')})\\b`);
}

function listenerPorts(p: RedisRttClusterProxy): number[] {
  return p.nodes().map((n) => Number(n.listen.split(':')[1]));
}

/** Sends commands on one socket (TLS when `overTls`) to a listener; resolves with all that came back (the last command is PING). */
function through(port: number, overTls: boolean, cmds: string[][]): Promise<string> {
  return untilPong(overTls ? tls.connect({ host: '127.0.0.1', port, ca: proxyCaPem }) : net.connect({ host: '127.0.0.1', port }), cmds);
}

/**
 * Client connections on the nodes that are neither proxy's upstream sockets (both proxies run on
 * the one cluster), leaving out node-to-node MIGRATE traffic (RESTORE-ASKING). A connection a proxy
 * is opening right now (a client just followed MOVED) shows in CLIENT LIST before the proxy knows
 * its local port: callers poll until the lists agree (DIRECT_POLL), then judge.
 */
async function direct(): Promise<string[]> {
  const lines = await directClients(cluster, plain);
  const proxied = new Set([...plain.connections(), ...secure.connections()].map((c) => String(c.upstreamLocalPort)));
  return lines.filter((l) => !proxied.has(/ addr=\S+:(\d+) /.exec(l)?.[1] ?? '') && !l.includes(' cmd=restore-asking '));
}
const DIRECT_POLL = { timeout: 3000, interval: 50 };

/** Commands each node's tap counted, by the node's real port. */
function commandsByNode(p: RedisRttClusterProxy): Map<number, number> {
  return new Map(p.stats().cluster.nodes.map((n) => [Number(n.upstream.split(':')[1]), n.counters.commands]));
}

describe('cluster mode over TLS: discovery, listeners and rewritten replies', () => {
  it('discovers all six nodes over TLS, in auto mode too, each behind its own listener', () => {
    for (const p of [plain, secure]) {
      expect(p.cluster).toBe(true);
      expect(p.nodes()).toHaveLength(6);
      expect(p.nodes().filter((n) => n.role === 'master')).toHaveLength(3);
      expect(new Set(p.nodes().map((n) => n.upstream))).toEqual(new Set(cluster.nodes.map((n) => n.address)));
    }
    expect(plain.tlsCaFile).toBeUndefined();
    expect(proxyCa).toMatch(/ca\.crt$/);
  });

  it.each([
    ['plaintext client -> TLS cluster', false],
    ['TLS client -> TLS cluster', true],
  ])('%s: SLOTS, SHARDS, NODES and MOVED name only listeners; SHARDS gives the port under the listener protocol key', async (_name, overTls) => {
    const p = overTls ? secure : plain;
    const other = (await keyPerMaster(cluster)).find((k) => k.masterPort !== cluster.nodes[0]!.port)!.key;
    for (const proto of ['2', '3']) {
      const out = await through(p.port!, overTls, [['HELLO', proto], ['CLUSTER', 'SLOTS'], ['CLUSTER', 'SHARDS'], ['CLUSTER', 'NODES'], ['GET', other], ['PING']]);
      expect(out).toMatch(/-MOVED \d+ 127\.0\.0\.1:(\d+)/);
      expect(listenerPorts(p)).toContain(Number(/-MOVED \d+ 127\.0\.0\.1:(\d+)/.exec(out)![1]));
      const leak = realPorts().exec(out);
      expect(leak ? out.slice(Math.max(0, leak.index - 200), leak.index + 50) : '').toBe('');
      for (const port of listenerPorts(p)) expect(out).toContain(String(port));
      // Six nodes in SHARDS, each with one port key: the listener's protocol.
      const keyed = (k: string): number => out.split(`\r\n${k}\r\n`).length - 1;
      expect(keyed(overTls ? 'tls-port' : 'port')).toBe(6);
      expect(keyed(overTls ? 'port' : 'tls-port')).toBe(0);
    }
  });
});

describe('real cluster clients through the proxy reach every shard, and no node directly', () => {
  it('ioredis Cluster, plaintext and with tls: keys on all three shards, every node connection a proxy upstream socket', async () => {
    const keys = await keyPerMaster(cluster);
    for (const [p, extra] of [[plain, {}], [secure, { tls: { ca: proxyCaPem } }]] as const) {
      const before = commandsByNode(p);
      const c = new Cluster([{ host: '127.0.0.1', port: p.port! }], { redisOptions: extra });
      try {
        for (const { key } of keys) await c.set(key, `v-${key}`);
        for (const { key } of keys) expect(await c.get(key)).toBe(`v-${key}`);
        await expect.poll(direct, DIRECT_POLL).toEqual([]);
        const after = commandsByNode(p);
        for (const { masterPort } of keys) expect(after.get(masterPort)! - (before.get(masterPort) ?? 0)).toBeGreaterThanOrEqual(2);
      } finally {
        c.disconnect();
      }
    }
  });

  it('redis-cli -c (plaintext, and --tls --cacert) follows MOVED through the listeners', async () => {
    const keys = await keyPerMaster(cluster);
    const cli = (p: RedisRttClusterProxy, args: string[]): string[] => [
      ...(p === secure ? ['--tls', '--cacert', proxyCa] : []), '-c', '-h', '127.0.0.1', '-p', String(p.port), ...args];
    for (const p of [plain, secure]) {
      for (const { key } of keys) {
        await run('redis-cli', cli(p, ['SET', key, `cli-${key}`]));
        const { stdout } = await run('redis-cli', cli(p, ['GET', key]));
        expect(stdout.trim()).toBe(`cli-${key}`);
      }
      await expect.poll(direct, DIRECT_POLL).toEqual([]);
    }
  });

  it('redis-py RedisCluster with ssl=True: 30 SETs and GETs over all shards through the TLS listeners', async () => {
    const script = [
      'from redis.cluster import RedisCluster',
      `c = RedisCluster(host="127.0.0.1", port=${secure.port}, ssl=True, ssl_ca_certs=${JSON.stringify(proxyCa)})`,
      'for i in range(30): c.set("py:%d" % i, str(i))',
      'print(sum(1 for i in range(30) if c.get("py:%d" % i) == str(i).encode()))',
      'print(len(c.get_nodes()))',
      'print(",".join(sorted(set(str(n.port) for n in c.get_nodes()))))',
    ].join('\n');
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { timeout: 30_000 });
    const [ok, nodeCount, ports] = stdout.trim().split('\n');
    expect(ok).toBe('30');
    expect(Number(nodeCount)).toBeGreaterThanOrEqual(3);
    for (const port of ports!.split(',')) expect(listenerPorts(secure)).toContain(Number(port));
    await expect.poll(direct, DIRECT_POLL).toEqual([]);
  });
});

describe('TLS counters on both sides', () => {
  it('/stats tls and /metrics count the upstream TLS wire bytes beside the plaintext', async () => {
    for (const p of [plain, secure]) {
      const s = p.stats();
      expect(s.tls!.upstreamHandshakes).toBeGreaterThan(0);
      expect(s.tls!.upstreamWireBytesUp).toBeGreaterThan(s.totals.bytesUp);
      expect(s.tls!.upstreamWireBytesDown).toBeGreaterThan(s.totals.bytesDown);
      expect(p.tlsStats!()).toEqual(s.tls);
      // What the cluster's /metrics serves.
      const text = renderMetrics(s);
      expect(text).toContain(`redis_rtt_tls_wire_bytes_total{side="upstream",direction="up"} ${s.tls!.upstreamWireBytesUp}\n`);
      expect(text).toContain(`redis_rtt_tls_wire_bytes_total{side="upstream",direction="down"} ${s.tls!.upstreamWireBytesDown}\n`);
      expect(text).toContain(`redis_rtt_tls_handshakes_total{side="upstream",result="ok"} ${s.tls!.upstreamHandshakes}\n`);
    }
    expect(plain.stats().tls!.handshakes).toBe(0);
    expect(secure.stats().tls!.handshakes).toBeGreaterThan(0);
    expect(secure.stats().tls!.wireBytesUp).toBeGreaterThan(secure.stats().totals.bytesUp);
  });
});

describe('a slot moved under a stale client', () => {
  it("MOVED names the new owner's listener, and the client follows it there, for plaintext and TLS clients", async () => {
    const [first, second] = await keyPerMaster(cluster);
    const [slotReply] = await rawCommands(cluster.nodes[0]!.endpoint, [['CLUSTER', 'KEYSLOT', first!.key]], 1000, cluster.nodes[0]!.clientTls);
    const slot = slotReply!.text!;
    const nodesOf = async (): Promise<{ id: string; port: number; master: boolean }[]> => {
      const [text] = await rawCommands(cluster.nodes[0]!.endpoint, [['CLUSTER', 'NODES']], 1000, cluster.nodes[0]!.clientTls);
      return text!.text!.trim().split('\n').map((l) => {
        const f = l.split(' ');
        return { id: f[0]!, port: Number(f[1]!.split(/[:@]/)[1]), master: f[2]!.includes('master') };
      });
    };
    const all = await nodesOf();
    const target = all.find((n) => n.port === second!.masterPort)!;
    const clients = [
      new Cluster([{ host: '127.0.0.1', port: plain.port! }]),
      new Cluster([{ host: '127.0.0.1', port: secure.port! }], { redisOptions: { tls: { ca: proxyCaPem } } }),
    ];
    try {
      for (const c of clients) expect(await c.get(first!.key)).not.toBeNull();
      // Move the key's slot (with its key) to another master: MIGRATE, then SETSLOT NODE on every master.
      const source = cluster.nodes.find((n) => n.port === first!.masterPort)!;
      const dest = cluster.nodes.find((n) => n.port === target.port)!;
      const sourceId = all.find((n) => n.port === first!.masterPort)!.id;
      await rawCommands(dest.endpoint, [['CLUSTER', 'SETSLOT', slot, 'IMPORTING', sourceId]], 1000, dest.clientTls);
      await rawCommands(source.endpoint, [['CLUSTER', 'SETSLOT', slot, 'MIGRATING', target.id]], 1000, source.clientTls);
      const [migrated] = await rawCommands(source.endpoint, [['MIGRATE', '127.0.0.1', String(dest.port), first!.key, '0', '5000']], 6000, source.clientTls);
      expect(migrated?.text).toBe('OK');
      for (const m of all.filter((n) => n.master)) {
        const node = cluster.nodes.find((n) => n.port === m.port)!;
        await rawCommands(node.endpoint, [['CLUSTER', 'SETSLOT', slot, 'NODE', target.id]], 1000, node.clientTls);
      }
      // A stale client at the old owner's listener is sent to the new owner's listener.
      for (const [p, overTls] of [[plain, false], [secure, true]] as const) {
        const oldListener = Number(p.nodes().find((n) => n.upstream === source.address)!.listen.split(':')[1]);
        const newListener = Number(p.nodes().find((n) => n.upstream === dest.address)!.listen.split(':')[1]);
        const out = await through(oldListener, overTls, [['GET', first!.key], ['PING']]);
        expect(out).toMatch(new RegExp(`^-MOVED ${slot} 127\\.0\\.0\\.1:${newListener}\\r\\n`));
      }
      const before = plain.stats().cluster.rewrites.moved + secure.stats().cluster.rewrites.moved;
      for (const c of clients) expect(await c.get(first!.key)).not.toBeNull();
      expect(plain.stats().cluster.rewrites.moved + secure.stats().cluster.rewrites.moved).toBeGreaterThan(before);
      await expect.poll(direct, DIRECT_POLL).toEqual([]);
    } finally {
      for (const c of clients) c.disconnect();
    }
  });
});

describe('--upstream-insecure in cluster mode', () => {
  it('reaches every node without a CA and warns once, not once per node', async () => {
    const logs: string[] = [];
    const p = (await startProxy({ upstream: cluster.address, cluster: 'on', upstreamTls: { insecure: true }, log: (l) => logs.push(l) })) as RedisRttClusterProxy;
    try {
      expect(p.nodes()).toHaveLength(6);
      expect(await through(p.port!, false, [['PING']])).toBe('+PONG\r\n');
      expect(logs.filter((l) => l.includes('WARNING: --upstream-insecure'))).toHaveLength(1);
    } finally {
      await p.close();
    }
  });
});

describe('the CLI', () => {
  it('proxy --upstream-tls --listen-tls (cluster auto): the JSON line lists the six nodes and the one CA; redis-cli -c --tls works through it', async () => {
    const p = await startCliProxy(['--upstream', cluster.address, '--upstream-tls', '--upstream-ca', cluster.tls!.caFile, '--listen-tls']);
    try {
      const line = p.line as unknown as { tlsCa: string; nodes: { upstream: string; listen: string }[] };
      expect(line.nodes).toHaveLength(6);
      expect(line.tlsCa).toMatch(/ca\.crt$/);
      const { key } = (await keyPerMaster(cluster))[1]!;
      const cli = ['--tls', '--cacert', line.tlsCa, '-c', '-p', String(p.port)];
      await run('redis-cli', [...cli, 'SET', key, 'via-cli']);
      expect((await run('redis-cli', [...cli, 'GET', key])).stdout.trim()).toBe('via-cli');
    } finally {
      await p.stop('SIGTERM');
    }
  });
});

describe('bad input', () => {
  it('a CA that did not sign the cluster: a ConfigError naming --upstream-ca and the verification failure, in auto and on', async () => {
    const other = await startPrivateRedis({ tls: true });
    try {
      for (const mode of ['auto', 'on'] as const) {
        const wrongCa = { ca: other.tls!.caFile };
        const err = await startProxy({ upstream: cluster.address, cluster: mode, upstreamTls: wrongCa, log: () => {} }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as ConfigError).flag).toBe('--upstream-ca');
        expect((err as Error).message).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY|self-signed|unable to verify/);
      }
      const r = await runCli(['proxy', '--upstream', cluster.address, '--upstream-tls', '--upstream-ca', other.tls!.caFile, '--cluster', 'on']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--upstream-ca: .*cluster discovery at .* failed: (SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY)/);
      expect(r.stdout).toBe('');
      // The proxies already running go on serving.
      expect(await through(plain.port!, false, [['PING']])).toBe('+PONG\r\n');
    } finally {
      await other.stop();
    }
  });
});
