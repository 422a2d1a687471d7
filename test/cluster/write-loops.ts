import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Cluster } from 'ioredis';

/** One write a loop made: key `${prefix}${n}` set to n, issued and settled at wall-clock ms. */
export interface WriteResult {
  n: number;
  issuedMs: number;
  doneMs: number;
  /** The error the client surfaced; undefined: the client got OK. */
  error?: string;
}

/** A client writing unique keys one after another until stopped; `results` grows as replies come. */
export interface WriteLoop {
  readonly client: string;
  /** The client's options, as the report shows them. */
  readonly options: string;
  readonly results: WriteResult[];
  stop(): Promise<void>;
}

/** ioredis Cluster: `SET prefix+n n` in a loop, each awaited (errors kept, the loop goes on). */
export function ioredisLoop(c: Cluster, prefix: string, options: string): WriteLoop {
  const results: WriteResult[] = [];
  let stopped = false;
  const done = (async () => {
    for (let n = 0; !stopped; n++) {
      const issuedMs = Date.now();
      try {
        await c.set(`${prefix}${n}`, String(n));
        results.push({ n, issuedMs, doneMs: Date.now() });
      } catch (err) {
        results.push({ n, issuedMs, doneMs: Date.now(), error: (err as Error).message });
      }
    }
  })();
  return {
    client: 'ioredis Cluster',
    options,
    results,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/**
 * redis-py RedisCluster in /usr/bin/python3, the same loop; one line per write on stdout
 * (`ok n issued done` / `err n issued done Type: message`), until a line arrives on its stdin.
 * It starts from the listener at `seed`. `recreate`: a RedisClusterException makes the loop build a
 * new client from every listener in `startupPorts` (redis-py 4.3.x can fail to re-read the topology
 * once a node's connection failed: its deepcopy of the connection options raises "cannot pickle
 * '_thread.lock' object", redis/redis-py#2354, fixed in 4.4.0).
 */
export function redisPyLoop(seed: number, prefix: string, o: { recreate: false } | { recreate: true; startupPorts: readonly number[] }): WriteLoop {
  const script = [
    'import sys, threading, time',
    'from redis.cluster import ClusterNode, RedisCluster',
    'from redis.exceptions import RedisClusterException',
    `c = RedisCluster(host="127.0.0.1", port=${seed})`,
    ...(o.recreate ? [`make = lambda: RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", p) for p in ${JSON.stringify(o.startupPorts)}])`] : []),
    'stop = threading.Event()',
    'threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()',
    'n = 0',
    'while not stop.is_set():',
    '    t0 = time.time() * 1000',
    '    try:',
    `        c.set(${JSON.stringify(prefix)} + str(n), n)`,
    '        print("ok", n, t0, time.time() * 1000, flush=True)',
    '    except Exception as e:',
    '        print("err", n, t0, time.time() * 1000, type(e).__name__ + ":", str(e).replace("\\n", " "), flush=True)',
    ...(o.recreate ? ['        if isinstance(e, RedisClusterException):', '            try: c = make()', '            except Exception: pass'] : []),
    '    n += 1',
  ].join('\n');
  const child = spawn('/usr/bin/python3', ['-c', script], { stdio: ['pipe', 'pipe', 'ignore'] });
  const results: WriteResult[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const [kind, n, issued, done, ...rest] = line.split(' ');
    const r: WriteResult = { n: Number(n), issuedMs: Number(issued), doneMs: Number(done) };
    if (kind === 'err') r.error = rest.join(' ');
    results.push(r);
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    client: 'redis-py RedisCluster',
    options: o.recreate ? 'a new client on every listener after each RedisClusterException' : 'defaults, one seed',
    results,
    stop: async () => {
      child.stdin.end('stop\n');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** What a failover cost one client, from the kill at `killMs`. */
export interface FailoverCost {
  client: string;
  options: string;
  /** From the kill to the reply of the first write issued after it that got OK; undefined: none did. */
  firstGoodWriteMs: number | undefined;
  /** From the kill to the end of the run. */
  watchedMs: number;
  /** Errors the client surfaced, by message (numbers folded to N), with counts. */
  errors: Record<string, number>;
  /** Writes that got OK. */
  acked: number;
  /** Writes that got OK and are missing afterwards. */
  ackedLost: number;
}

/** The report of one loop, given which of its keys are present afterwards. */
export function failoverCost(loop: WriteLoop, killMs: number, stoppedMs: number, present: ReadonlySet<number>): FailoverCost {
  const firstGood = loop.results.find((r) => r.error === undefined && r.issuedMs >= killMs);
  const errors: Record<string, number> = {};
  for (const r of loop.results) {
    if (r.error === undefined) continue;
    const key = r.error.replace(/\d+/g, 'N');
    errors[key] = (errors[key] ?? 0) + 1;
  }
  const acked = loop.results.filter((r) => r.error === undefined);
  return {
    client: loop.client,
    options: loop.options,
    firstGoodWriteMs: firstGood === undefined ? undefined : Math.round(firstGood.doneMs - killMs),
    watchedMs: Math.round(stoppedMs - killMs),
    errors,
    acked: acked.length,
    ackedLost: acked.filter((r) => !present.has(r.n)).length,
  };
}

/** The markdown table docs/cluster.md shows. */
export function renderFailoverTable(rows: readonly FailoverCost[]): string {
  const lines = ['| client (options) | kill to first good write | errors surfaced | acked writes lost |', '|---|---|---|---|'];
  for (const r of rows) {
    const errors = Object.entries(r.errors).map(([m, k]) => `${k} x ${m}`).join('; ') || 'none';
    lines.push(`| ${r.client} (${r.options}) | ${r.firstGoodWriteMs === undefined ? `none in ${r.watchedMs} ms` : `${r.firstGoodWriteMs} ms`} | ${errors} | ${r.ackedLost} of ${r.acked} |`);
  }
  return lines.join('\n');
}
