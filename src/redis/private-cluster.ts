import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, RedisSpawnError } from '../errors.js';
import { checkMsOption, keysOf, refuseUnknownKeys } from '../validation/known-keys.js';
import { findFreePort } from './free-port.js';
import { sleep } from './process-wait.js';
import { startPrivateRedis, type PrivateRedis } from './private-redis.js';
import type tls from 'node:tls';
import type { Endpoint } from '../endpoint.js';
import { rawCommands } from './raw-command.js';
import { generateTlsFiles, type TlsFiles } from './tls-certs.js';

export interface PrivateClusterOptions {
  /** Number of primaries (at least 3: redis-cli --cluster create refuses fewer). @default 3 */
  masters?: number;
  /** Replicas attached to each primary. @default 1 */
  replicasPerMaster?: number;
  /** cluster-node-timeout: how long a silent node takes to be marked failing. @default 2000 */
  nodeTimeoutMs?: number;
  /** How long to wait for every slot to be covered and every replica attached. @default 20000 */
  readyTimeoutMs?: number;
  /** The redis-server binary. @default $REDIS_SERVER, else 'redis-server' on PATH */
  serverPath?: string;
  /** The redis-cli binary (for `--cluster create`). @default $REDIS_CLI, else 'redis-cli' on PATH */
  cliPath?: string;
  /**
   * TLS only: every node serves `--tls-port` (no plaintext port) with `--tls-cluster yes
   * --tls-replication yes`, all with one throwaway CA and certificate (`cluster.tls`), and does not
   * ask clients for certificates. @default false
   */
  tls?: boolean;
}

export const DEFAULT_PRIVATE_CLUSTER = {
  masters: 3,
  replicasPerMaster: 1,
  nodeTimeoutMs: 2000,
  readyTimeoutMs: 20_000,
} as const;

export interface PrivateClusterNode {
  readonly server: PrivateRedis;
  /** "127.0.0.1:PORT", the client port. */
  readonly address: string;
  readonly port: number;
  /** The cluster bus port (passed explicitly: see below). */
  readonly busPort: number;
  /** Where rawCommands() reaches it. */
  readonly endpoint: Endpoint;
  /** How, when the cluster speaks TLS: trusting its CA. */
  readonly clientTls?: tls.ConnectionOptions;
}

export interface PrivateCluster {
  /** Every node in start order; roles change with failovers, so ask the cluster for them. */
  readonly nodes: readonly PrivateClusterNode[];
  /** A seed address to give a client or the proxy (the first node). */
  readonly address: string;
  /** The certificates of a TLS cluster: clients trust `caFile`. */
  readonly tls?: TlsFiles;
  /** Stops every node and removes every temp dir. Idempotent. */
  stop(): Promise<void>;
  /** stop(), for `await using cluster = await startPrivateCluster()`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const POLL_INTERVAL_MS = 50;
/** After this long with a node that does not know every other, the wait sends the missing CLUSTER MEETs itself, and again every MEET_EVERY_MS. */
const MEET_AFTER_MS = 3000;
const MEET_EVERY_MS = 2000;
const UNKNOWN_NODES = 'does not know every node yet';
const START_ATTEMPTS = 3;
const INSTALL_HINT = 'install it with `apt-get install -y redis-tools` (or set REDIS_CLI to its path)';

const PRIVATE_CLUSTER_KEYS = keysOf<PrivateClusterOptions>()({
  masters: true, replicasPerMaster: true, nodeTimeoutMs: true, readyTimeoutMs: true, serverPath: true, cliPath: true, tls: true,
});

/**
 * Starts a private Redis Cluster: one startPrivateRedis() per node with cluster mode on, joined by
 * `redis-cli --cluster create`, resolved once every node reports all 16384 slots covered and the
 * replicas are attached. The bus port is passed explicitly: Redis 7.0 would otherwise take
 * port+10000 and refuses to start when that passes 65535, and free ports here reach 60999.
 */
export async function startPrivateCluster(opts: PrivateClusterOptions = {}): Promise<PrivateCluster> {
  refuseUnknownKeys(opts, PRIVATE_CLUSTER_KEYS, 'startPrivateCluster()');
  const masters = opts.masters ?? DEFAULT_PRIVATE_CLUSTER.masters;
  const replicas = opts.replicasPerMaster ?? DEFAULT_PRIVATE_CLUSTER.replicasPerMaster;
  // Options, not a server that failed: ConfigError, as every other option of the API.
  if (!Number.isInteger(masters) || masters < 3) throw new ConfigError('masters', masters, 'a whole number of at least 3');
  if (!Number.isInteger(replicas) || replicas < 0) throw new ConfigError('replicasPerMaster', replicas, 'a whole number, 0 or more');
  // redis-server refused a bad --cluster-node-timeout: a RedisSpawnError, as if it had not started.
  if (opts.nodeTimeoutMs !== undefined) checkMsOption('nodeTimeoutMs', opts.nodeTimeoutMs, true);
  if (opts.readyTimeoutMs !== undefined) checkMsOption('readyTimeoutMs', opts.readyTimeoutMs);
  if (opts.cliPath !== undefined && (typeof opts.cliPath !== 'string' || opts.cliPath === '')) throw new ConfigError('cliPath', opts.cliPath, 'the path of a redis-cli binary');
  if (opts.tls !== undefined && typeof opts.tls !== 'boolean') throw new ConfigError('tls', opts.tls, 'true or false');
  const total = masters * (1 + replicas);
  const nodes: PrivateClusterNode[] = [];
  const tlsDir = opts.tls ? mkdtempSync(join(tmpdir(), 'redis-rtt-cluster-tls-')) : undefined;
  const stopAll = (): Promise<void> =>
    Promise.all(nodes.map((n) => n.server.stop())).then(() => {
      if (tlsDir !== undefined) rmSync(tlsDir, { recursive: true, force: true });
    });
  let tls: TlsFiles | undefined;
  try {
    if (tlsDir !== undefined) tls = generateTlsFiles(tlsDir);
    const started = await Promise.all(Array.from({ length: total }, () => startNode(opts, tls)));
    nodes.push(...started);
    await createCluster(nodes, replicas, opts.cliPath ?? process.env.REDIS_CLI ?? 'redis-cli', tls);
    await waitClusterReady(nodes, masters, replicas, opts.readyTimeoutMs ?? DEFAULT_PRIVATE_CLUSTER.readyTimeoutMs);
  } catch (err) {
    await stopAll();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= stopAll());
  return { nodes, address: nodes[0]!.address, tls, stop, [Symbol.asyncDispose]: stop };
}

async function startNode(opts: PrivateClusterOptions, tls: TlsFiles | undefined): Promise<PrivateClusterNode> {
  for (let attempt = 1; ; attempt++) {
    const busPort = await findFreePort();
    try {
      const server = await startPrivateRedis({
        serverPath: opts.serverPath,
        args: [
          '--cluster-enabled', 'yes',
          // Relative to --dir, the node's own temp dir: removed with it.
          '--cluster-config-file', 'nodes.conf',
          '--cluster-node-timeout', String(opts.nodeTimeoutMs ?? DEFAULT_PRIVATE_CLUSTER.nodeTimeoutMs),
          '--cluster-port', String(busPort),
          // CLUSTER SLOTS hides a replica until its replication offset is above 0, which the
          // master's replication PING makes it: every second instead of every 10.
          '--repl-ping-replica-period', '1',
          // The replicas' first sync (and one after a failover) without the 5 s Redis 7 waits for more
          // replicas by default: the start waits for every replica's link, as private-sentinel.ts does.
          '--repl-diskless-sync', 'yes',
          '--repl-diskless-sync-delay', '0',
          // The bus and replication over TLS too: then Redis names nodes by their TLS ports.
          ...(tls ? ['--tls-cluster', 'yes', '--tls-replication', 'yes'] : []),
        ],
        tls: tls && { files: tls },
      });
      const port = server.port!;
      const endpoint: Endpoint = { kind: 'tcp', host: '127.0.0.1', port };
      return { server, address: server.address, port, busPort, endpoint, ...(tls ? { clientTls: { ca: readFileSync(tls.caFile) } } : {}) };
    } catch (err) {
      // Another process can take the bus port between findFreePort() and redis binding it.
      const raced = err instanceof RedisSpawnError && /in use|Could not (create server TCP|bind)/i.test(err.message);
      if (!raced || attempt >= START_ATTEMPTS) throw err;
    }
  }
}

function createCluster(nodes: readonly PrivateClusterNode[], replicas: number, cliPath: string, tls: TlsFiles | undefined): Promise<void> {
  const args = [...(tls ? ['--tls', '--cacert', tls.caFile] : []), '--cluster', 'create', ...nodes.map((n) => n.address), '--cluster-replicas', String(replicas), '--cluster-yes'];
  return new Promise((resolve, reject) => {
    execFile(cliPath, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (!err) return resolve();
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return reject(new RedisSpawnError(`redis-cli not found at "${cliPath}": ${INSTALL_HINT}`));
      reject(new RedisSpawnError(`redis-cli --cluster create failed: ${err.message}`, `${stdout}\n${stderr}`));
    });
  });
}

/**
 * Every node: cluster_state ok, all slots ok, all nodes known; and the replicas are attached.
 * Exported for its test (test/redis/private-cluster.test.ts); startPrivateCluster() calls it.
 */
export async function waitClusterReady(nodes: readonly PrivateClusterNode[], masters: number, replicas: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let meetAtMs = Date.now() + MEET_AFTER_MS;
  let last = '';
  for (;;) {
    last = await readinessProblem(nodes, masters, replicas);
    if (last === '') return;
    if (Date.now() >= deadline) throw new RedisSpawnError(`private cluster not ready within ${timeoutMs} ms: ${last}`);
    if (last.endsWith(UNKNOWN_NODES) && Date.now() >= meetAtMs) {
      await meetUnknown(nodes);
      meetAtMs = Date.now() + MEET_EVERY_MS;
    }
    await sleep(POLL_INTERVAL_MS);
  }
}

/**
 * Has each node MEET every node it does not list. Gossip spreads the nodes within a second or two;
 * but a node whose handshake with another was lost, or that forgot one (CLUSTER FORGET keeps it out
 * of gossip for 60 s), stays short of one, and a CI run once waited its 20 s out that way.
 */
async function meetUnknown(nodes: readonly PrivateClusterNode[]): Promise<void> {
  for (const n of nodes) {
    const [text] = await rawCommands(n.endpoint, [['CLUSTER', 'NODES']], 1000, n.clientTls).catch(() => []);
    // A line: <id> <ip:port@busport[,hostname]> <flags> ...
    const listed = new Set((text?.text ?? '').split('\n').map((l) => l.split(' ')[1]?.split('@')[0]));
    const meets = nodes.filter((o) => o !== n && !listed.has(o.address)).map((o) => ['CLUSTER', 'MEET', '127.0.0.1', String(o.port), String(o.busPort)]);
    if (meets.length > 0) await rawCommands(n.endpoint, meets, 1000, n.clientTls).catch(() => []);
  }
}

async function readinessProblem(nodes: readonly PrivateClusterNode[], masters: number, replicas: number): Promise<string> {
  let replicasUp = 0;
  for (const n of nodes) {
    const cmds = [['CLUSTER', 'INFO'], ['CLUSTER', 'NODES'], ['INFO', 'replication'], ['CLUSTER', 'SLOTS']];
    const [info, text, repl, slots] = await rawCommands(n.endpoint, cmds, 1000, n.clientTls).catch(() => []);
    const i = info?.text ?? '';
    if (!/cluster_state:ok/.test(i)) return `${n.address} cluster_state not ok`;
    if (!/cluster_slots_ok:16384\b/.test(i)) return `${n.address} not all slots ok`;
    if (!new RegExp(`cluster_known_nodes:${nodes.length}\\b`).test(i)) return `${n.address} ${UNKNOWN_NODES}`;
    const lines = (text?.text ?? '').split('\n').filter((l) => l.trim() !== '');
    const seenReplicas = lines.filter((l) => l.split(' ')[2]?.split(',').some((f) => f === 'slave' || f === 'replica')).length;
    if (seenReplicas < masters * replicas) return `${n.address} sees ${seenReplicas} of ${masters * replicas} replicas`;
    const listed = (slots?.items ?? []).reduce((sum, range) => sum + Math.max(0, (range.items?.length ?? 2) - 2), 0);
    if (listed < masters * (1 + replicas)) return `${n.address} lists ${listed} of ${masters * (1 + replicas)} nodes in CLUSTER SLOTS`;
    if (/role:slave/.test(repl?.text ?? '') && /master_link_status:up/.test(repl?.text ?? '')) replicasUp++;
  }
  return replicasUp < masters * replicas ? `${replicasUp} of ${masters * replicas} replicas have their master link up` : '';
}
