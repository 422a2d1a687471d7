import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createSentinel } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rawCommands } from '../../src/redis/index.js';
import { startPrivateSentinel, type PrivateSentinel } from '../../src/redis/private-sentinel.js';
import type { RedisRttSentinelProxy } from '../../src/sentinel/sentinel-proxy.js';
import { startSentinelProxy } from '../../src/sentinel/start-sentinel.js';
import { failoverRows, renderRows, type Row, type Scenario, type Write } from './failover-report.js';
import { directClients, primaryPort } from './helpers.js';

/**
 * What a failover costs, through the listeners: ioredis (sentinel mode, failoverDetector),
 * redis-py (Sentinel.master_for) and node-redis (createSentinel) loop writes, each with and
 * without WAIT 1 100, through a SENTINEL FAILOVER and then a SIGKILL of the primary
 * (down-after-milliseconds 1000, failover-timeout 5000). docs/failover.md has the table;
 * REDIS_RTT_FAILOVER_REPORT=FILE writes this run's rows there.
 */
const RTT_US = 1000;
const PY_LOOP = fileURLToPath(new URL('./write-loop.py', import.meta.url));

/** Back-off after a failed write, ms. */
const RETRY_BACKOFF_MS = 50;
/** Acknowledged writes each loop has before the first failover. */
const STEADY_WRITES = 20;
/** Time for writes in flight when a scenario ends to finish, ms. */
const IN_FLIGHT_SETTLE_MS = 500;

interface Loop {
  client: string;
  wait: boolean;
  /** Every write so far. */
  readonly writes: readonly Write[];
  /** When the client gave up for good (ioredis status `end`), ms epoch. */
  gaveUpMs?: number;
  stop(): Promise<Write[]>;
}

/** A loop over `write` until stopped: each write's start, end, whether acknowledged, and its error. */
function nodeLoop(client: string, wait: boolean, write: (key: string) => Promise<boolean>): Loop {
  const prefix = `${client}:${wait ? 'w' : 'n'}:`;
  const writes: Write[] = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const key = `${prefix}${i}`;
      const start = Date.now();
      try {
        writes.push([key, start, Date.now(), await write(key), null]);
      } catch (err) {
        writes.push([key, start, Date.now(), false, `${(err as Error).name}: ${(err as Error).message.slice(0, 80)}`]);
        // A client that refuses at once would spin: a short back-off, as an application's retry has.
        await new Promise((r) => setTimeout(r, RETRY_BACKOFF_MS));
      }
    }
  })();
  return { client, wait, writes, stop: async () => ((running = false), await done, writes) };
}

function pyLoop(host: string, port: number, wait: boolean): Loop {
  const prefix = `redis-py:${wait ? 'w' : 'n'}:`;
  const child = spawn('/usr/bin/python3', [PY_LOOP, host, String(port), 'mymaster', prefix, wait ? '1' : '0'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const writes: Write[] = [];
  let rest = '';
  child.stdout.on('data', (c: Buffer) => {
    const lines = (rest + c.toString()).split('\n');
    rest = lines.pop()!;
    for (const l of lines) writes.push(JSON.parse(l) as Write);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { client: 'redis-py', wait, writes, stop: async () => (child.stdin.end(), await exited, writes) };
}

describe('a failover through the listeners', () => {
  let setup: PrivateSentinel;
  let proxy: RedisRttSentinelProxy;
  beforeAll(async () => {
    setup = await startPrivateSentinel({ replicas: 2, sentinels: 3, downAfterMs: 1000, failoverTimeoutMs: 5000 });
    proxy = await startSentinelProxy({ sentinels: [...setup.sentinelAddresses], sentinelMaster: 'mymaster', link: { rttUs: RTT_US }, log: () => undefined });
  }, 30_000);
  afterAll(async () => {
    await proxy?.close();
    await setup?.stop();
  });

  it('ioredis, redis-py and node-redis stay behind the listeners through SENTINEL FAILOVER and a SIGKILLed primary; the cost per client', async () => {
    const seed = { host: proxy.host!, port: proxy.port! };
    const ioredis = [false, true].map((wait) => {
      const c = new Redis({ sentinels: [seed], name: 'mymaster', failoverDetector: true });
      c.on('error', () => undefined);
      const loop = nodeLoop('ioredis', wait, async (k) => (await c.set(k, '1')) === 'OK' && (!wait || (await c.wait(1, 100)) >= 1));
      // ioredis 6 can end for good during a failover (docs/failover.md): counted, not waited for.
      c.once('end', () => (loop.gaveUpMs ??= Date.now()));
      return { c, loop };
    });
    const nodeRedis = await Promise.all(
      [false, true].map(async (wait) => {
        const c = createSentinel({ name: 'mymaster', sentinelRootNodes: [seed] });
        c.on('error', () => undefined);
        await c.connect();
        return { c, loop: nodeLoop('node-redis', wait, async (k) => (await c.set(k, '1')) === 'OK' && (!wait || (await c.wait(1, 100)) >= 1)) };
      }),
    );
    const loops = [...ioredis.map((x) => x.loop), ...nodeRedis.map((x) => x.loop), pyLoop(seed.host, seed.port, false), pyLoop(seed.host, seed.port, true)];
    const sentinelAt = { kind: 'tcp' as const, host: '127.0.0.1', port: setup.sentinels[0]!.port! };
    const switchedFrom = async (before: number): Promise<number> => {
      await vi.waitFor(async () => expect(await primaryPort(setup)).not.toBe(before), { timeout: 20_000, interval: 20 });
      return Date.now();
    };
    const scenarios: Scenario[] = [];
    // Each client retries on its own schedule (ioredis backs off to seconds): wait for every loop's
    // first acknowledged write after `ms`, then a little more.
    const everyLoopWroteAfter = async (ms: number): Promise<void> => {
      const waiting = (): string[] =>
        loops.filter((l) => l.gaveUpMs === undefined && !l.writes.some((w) => w[1] >= ms && w[3])).map((l) => `${l.client} wait=${l.wait} last ${JSON.stringify(l.writes.slice(-2))} now ${Date.now()}`);
      await vi.waitFor(() => expect(waiting()).toEqual([]), {
        timeout: 20_000,
        interval: 50,
      });
      // Writes the clients had in flight at that moment finish and count in this scenario.
      await new Promise((r) => setTimeout(r, IN_FLIGHT_SETTLE_MS));
    };

    // Every client writing steadily before the first failover, so its losses are measured from a running loop.
    await vi.waitFor(() => expect(loops.filter((l) => l.writes.filter((w) => w[3]).length < STEADY_WRITES).map((l) => `${l.client} wait=${l.wait}`)).toEqual([]), {
      timeout: 20_000,
      interval: 50,
    });
    expect(await directClients(setup, proxy)).toEqual([]);
    const first = await primaryPort(setup);
    const t0 = Date.now();
    await rawCommands(sentinelAt, [['SENTINEL', 'FAILOVER', 'mymaster']]);
    const s0 = await switchedFrom(first);
    // The old primary takes writes until a sentinel's INFO poll (every 10 s for a replica) finds it
    // still a master and sends REPLICAOF: clients that follow no event write to it until then.
    const firstAt = { kind: 'tcp' as const, host: '127.0.0.1', port: first };
    await vi.waitFor(async () => expect((await rawCommands(firstAt, [['ROLE']]))[0]!.items![0]!.text).toBe('slave'), { timeout: 20_000, interval: 50 });
    const demoted = Date.now();
    await everyLoopWroteAfter(demoted);
    expect(await directClients(setup, proxy)).toEqual([]);

    const second = await primaryPort(setup);
    const killed = setup.nodes.find((n) => n.port === second)!;
    const t1 = Date.now();
    killed.kill('SIGKILL');
    scenarios.push({ name: 'SENTINEL FAILOVER', triggerMs: t0, switchMs: s0, demotedMs: demoted, endMs: t1 });
    const s1 = await switchedFrom(second);
    await everyLoopWroteAfter(s1);
    expect(await directClients(setup, proxy, [killed])).toEqual([]);
    const stopMs = Date.now();
    const writes = await Promise.all(loops.map((l) => l.stop()));
    scenarios.push({ name: 'SIGKILL primary', triggerMs: t1, switchMs: s1, endMs: stopMs });
    for (const x of ioredis) x.c.disconnect();
    await Promise.all(nodeRedis.map((x) => x.c.close()));

    const final = await primaryPort(setup);
    const rows: Row[] = [];
    for (const [i, l] of loops.entries()) {
      const keys = writes[i]!.map((w) => w[0]);
      const present = new Set<string>();
      for (let at = 0; at < keys.length; at += 1000) {
        const [r] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: final }, [['MGET', ...keys.slice(at, at + 1000)]], 5000);
        r!.items!.forEach((v, j) => v.text !== null && present.add(keys[at + j]!));
      }
      rows.push(...failoverRows(l, writes[i]!, scenarios, present));
    }
    const table = renderRows(rows);
    if (process.env.REDIS_RTT_FAILOVER_REPORT) writeFileSync(process.env.REDIS_RTT_FAILOVER_REPORT, JSON.stringify({ rows, scenarios }, null, 2) + '\n');
    const timeline = scenarios.map((x) => `${x.name}: switch after ${x.switchMs - x.triggerMs} ms${x.demotedMs ? `, old primary demoted after ${x.demotedMs - x.triggerMs} ms` : ''}`);
    console.log([table, ...timeline, ''].join('\n') + rows.map((r) => `${r.client} ${r.scenario} wait=${r.wait}: ${r.errorKinds.join('; ')}`).join('\n'));

    // Every client wrote on the new primary in both scenarios through the listeners, or had given up
    // for good by then.
    for (const r of rows) expect(r.firstGoodWriteMs !== null || r.gaveUpMs !== null, `${r.client} ${r.scenario} wait=${r.wait}`).toBe(true);
    expect(rows.filter((r) => r.client !== 'ioredis').every((r) => r.firstGoodWriteMs !== null)).toBe(true);
    const st = proxy.stats();
    expect(st.sentinel.rewrites['primary-address'] + st.sentinel.rewrites.masters).toBeGreaterThan(0);
    expect(st.cluster.nodes.filter((n) => n.role === 'sentinel')).toHaveLength(3);
    expect(st.sentinel.primary).toBe(`127.0.0.1:${final}`);
  }, 90_000);
});
