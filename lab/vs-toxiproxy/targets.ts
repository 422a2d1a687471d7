import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { ConfigError } from '../../src/errors.js';
import { parseEndpoint } from '../../src/endpoint.js';
import { CLI_ARGV, spawnServerChild } from '../overhead/server-child.js';
import { freePort, waitPort } from '../tools/proc.mjs';
import { HAPROXY_PATH, haproxyConfig } from '../tools/haproxy.mjs';

/** Where toxiproxy-server is found: the benchmark never looks on PATH or in a default place. */
export const TOXIPROXY_ENV = 'TOXIPROXY_SERVER';

/** One proxy under test, in a process of its own: where it listens and how to set its delay down. */
export interface Target {
  readonly port: number;
  readonly pid: number;
  /** One-way delay Redis -> client, whole ms; 0 removes it (no toxic, a zero-delay link). */
  setDelayDownMs(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** The path in $TOXIPROXY_SERVER, or a ConfigError when it is unset or names no executable file. */
export function toxiproxyPath(env: NodeJS.ProcessEnv = process.env): string {
  const path = env[TOXIPROXY_ENV];
  const accepts = 'the path of an executable toxiproxy-server (lab/README.md says how to build one)';
  if (!path) throw new ConfigError(TOXIPROXY_ENV, '(unset)', accepts);
  let executable = false;
  try {
    accessSync(path, constants.X_OK);
    executable = statSync(path).isFile();
  } catch {
    // missing or not executable: the same answer
  }
  if (!executable) throw new ConfigError(TOXIPROXY_ENV, path, accepts);
  return path;
}

/**
 * Sets the nice value of every thread of process `pid` (Linux keeps one per thread, and a Go or
 * Node process does its work on several); threads started later inherit it from the thread that
 * starts them. Below 0 needs root or CAP_SYS_NICE: a ConfigError naming --nice otherwise.
 */
export function setProcessNice(pid: number, nice: number): void {
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      os.setPriority(Number(tid), nice);
    } catch (err) {
      const code = (err as { info?: { code?: string } }).info?.code;
      if (code === 'ESRCH') continue; // the thread ended since the listing
      if (code === 'EACCES' || code === 'EPERM') throw new ConfigError('--nice', nice, 'a value this user may set (below 0 needs root or CAP_SYS_NICE)');
      throw err;
    }
  }
}

/** What `GET /stats` of redis-rtt says about itself (the fields this benchmark prints). */
export interface SelfFigures {
  lateP99Us: number;
  lateMaxUs: number;
  /** `self.addedUs`, when this build reports it. */
  addedP99Us?: number;
  addedMaxUs?: number;
  /** `self.roundTripAddedUs`, when this build reports it. */
  roundTripP99Us?: number;
  roundTripMaxUs?: number;
}

export interface RedisRttTarget extends Target {
  /** Clears /stats (POST /reset), so the next self() covers one run. */
  resetStats(): Promise<void>;
  self(): Promise<SelfFigures>;
}

/** `redis-rtt proxy --up 0 --compensate off --no-handshake` from bin/ with its control endpoint. */
export async function startRedisRtt(redisPort: number): Promise<RedisRttTarget> {
  let control = '';
  const child = await spawnServerChild(
    [...CLI_ARGV, 'proxy', '--upstream', `127.0.0.1:${redisPort}`, '--listen', '127.0.0.1:0', '--control', '127.0.0.1:0'].concat(
      ['--up', '0', '--down', '0', '--compensate', 'off', '--no-handshake'],
    ),
    (line) => {
      const first = JSON.parse(line) as { listen?: unknown; control?: unknown };
      control = String(first.control);
      const listen = parseEndpoint(String(first.listen), "the proxy's listening line");
      if (listen.kind !== 'tcp') throw new Error(`the proxy listens on ${listen.path}, not TCP`);
      return { host: listen.host, port: listen.port };
    },
    'redis-rtt proxy',
  );
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`http://${control}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
    if (!res.ok) throw new Error(`redis-rtt ${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return {
    port: child.port,
    pid: child.pid,
    setDelayDownMs: async (ms) => void (await call('PUT', '/link', { upUs: 0, downUs: ms * 1000 })),
    resetStats: async () => void (await call('POST', '/reset')),
    self: async () => selfFigures(((await call('GET', '/stats')) as { self?: unknown }).self),
    close: () => child.close(),
  };
}

interface Quantiles {
  p99: number;
  max: number;
}

/** The fields printed from /stats `self`; `addedUs` and `roundTripAddedUs` only where the build has them. */
export function selfFigures(self: unknown): SelfFigures {
  const s = (self ?? {}) as { lateUs?: Quantiles; addedUs?: Quantiles; roundTripAddedUs?: Quantiles };
  if (!s.lateUs) throw new Error('redis-rtt /stats has no self.lateUs');
  return {
    lateP99Us: s.lateUs.p99,
    lateMaxUs: s.lateUs.max,
    ...(s.addedUs ? { addedP99Us: s.addedUs.p99, addedMaxUs: s.addedUs.max } : {}),
    ...(s.roundTripAddedUs ? { roundTripP99Us: s.roundTripAddedUs.p99, roundTripMaxUs: s.roundTripAddedUs.max } : {}),
  };
}

export interface ToxiproxyTarget extends Target {
  readonly version: string;
}

const PROXY_NAME = 'redis';
const TOXIC_NAME = 'latency_downstream';

/**
 * toxiproxy-server on a free API port with one proxy to Redis (listen 127.0.0.1:0). The delay is
 * a `latency` toxic downstream, jitter 0, added, changed or removed through the HTTP API.
 */
export async function startToxiproxy(serverPath: string, redisPort: number): Promise<ToxiproxyTarget> {
  const apiPort = await freePort();
  // LOG_LEVEL=warn: at its default (info) toxiproxy logs every accepted connection.
  const child = keep(spawn(serverPath, ['-host', '127.0.0.1', '-port', String(apiPort)], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } }), 'toxiproxy-server');
  try {
    await waitPort(apiPort);
    const api = `http://127.0.0.1:${apiPort}`;
    const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
      const res = await fetch(`${api}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
      if (!res.ok) throw new Error(`toxiproxy ${method} ${path}: ${res.status} ${await res.text()}`);
      return res.status === 204 ? undefined : res.json();
    };
    const version = String(((await call('GET', '/version')) as { version?: unknown }).version);
    const proxy = (await call('POST', '/proxies', { name: PROXY_NAME, listen: '127.0.0.1:0', upstream: `127.0.0.1:${redisPort}`, enabled: true })) as { listen: string };
    const port = Number(proxy.listen.slice(proxy.listen.lastIndexOf(':') + 1));
    let toxicMs = 0;
    return {
      port,
      pid: child.process.pid!,
      version,
      setDelayDownMs: async (ms) => {
        const toxics = `/proxies/${PROXY_NAME}/toxics`;
        if (ms === toxicMs) return;
        if (ms === 0) await call('DELETE', `${toxics}/${TOXIC_NAME}`);
        else if (toxicMs === 0) await call('POST', toxics, { name: TOXIC_NAME, type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: ms, jitter: 0 } });
        else await call('POST', `${toxics}/${TOXIC_NAME}`, { attributes: { latency: ms, jitter: 0 } });
        toxicMs = ms;
      },
      close: child.stop,
    };
  } catch (err) {
    await child.stop();
    throw new Error(`toxiproxy-server (${serverPath}): ${(err as Error).message}; its output: ${child.output().trim()}`);
  }
}

/** HAProxy in TCP mode in front of Redis (no delay: it has none), config in `dir`. */
export async function startHaproxy(dir: string, redisPort: number, path = HAPROXY_PATH): Promise<Target> {
  const port = await freePort();
  const cfg = `${dir}/haproxy.cfg`;
  writeFileSync(cfg, haproxyConfig(port, redisPort));
  const child = keep(spawn(path, ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] }), 'haproxy');
  try {
    await waitPort(port);
  } catch (err) {
    await child.stop();
    throw new Error(`haproxy (${path}): ${(err as Error).message}; its output: ${child.output().trim()}`);
  }
  return {
    port,
    pid: child.process.pid!,
    setDelayDownMs: async (ms) => {
      if (ms !== 0) throw new Error('haproxy has no delay');
    },
    close: child.stop,
  };
}

/** A child whose output is kept (last 4 KiB, and drained so it never blocks) and that stops with SIGTERM, then SIGKILL. */
function keep(child: ChildProcess, what: string): { process: ChildProcess; output(): string; stop(): Promise<void> } {
  let output = '';
  const add = (d: Buffer): void => void (output = (output + d.toString()).slice(-4096));
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (err) => add(Buffer.from(`${what}: ${err.message}\n`)));
  return {
    process: child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
