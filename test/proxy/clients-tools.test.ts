/**
 * Client compatibility, tools side: redis-cli (--pipe, -3, -x, --scan, MONITOR, --stat), redis-py,
 * redis-benchmark and raw `nc`-style sessions (inline commands, a 10k pipeline, a 10k-key MGET, a
 * value larger than the proxy's high water) through a plain proxy with a delay each way. Every
 * command the proxy names is one Redis ran (INFO commandstats on a direct connection), and the
 * round trips are exact wherever the client's timing fixes them.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { Raw, WAIT, proxiedRedis, proxyCounted, redisRan, totals } from './clients-counts.js';

const run = promisify(execFile);

/** Ends a child and waits for it (at once when it has ended already). */
async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await gone;
}

describe('tools and raw sessions through a proxy with a delay each way', () => {
  const env = proxiedRedis();
  const cli = async (...args: string[]): Promise<string> => (await run('redis-cli', ['-h', env.proxy.host!, '-p', String(env.proxy.port), ...args])).stdout;

  /** After the clients closed: the proxy named what Redis ran, no more, no less. */
  async function sameAsRedis(): Promise<void> {
    await vi.waitUntil(() => env.proxy.stats().connections.active === 0, WAIT);
    expect(proxyCounted(env.proxy)).toEqual(await redisRan(env.admin));
    expect(env.proxy.stats().totals.unparsedBytes).toBe(0);
  }

  it('redis-cli: --pipe, -3, -x and --scan', async () => {
    const sets = Array.from({ length: 1000 }, (_, i) => `SET k${i} v${i}\r\n`).join('');
    const pipe = spawn('redis-cli', ['-h', env.proxy.host!, '-p', String(env.proxy.port), '--pipe'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    pipe.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise((resolve) => pipe.once('exit', resolve));
    pipe.stdin.end(sets);
    expect(await exited).toBe(0);
    expect(out).toContain('errors: 0, replies: 1000');
    expect((await cli('-3', 'HSET', 'h', 'f', '1.5')).trim()).toBe('1');
    expect((await run('sh', ['-c', `printf 'from stdin' | redis-cli -h ${env.proxy.host!} -p ${env.proxy.port} -x SET x`])).stdout.trim()).toBe('OK');
    expect((await cli('--scan', '--pattern', 'k1*')).trim().split('\n')).toHaveLength(111);
    await sameAsRedis();
    const t = totals(env.proxy);
    const scans = env.proxy.stats().commands['SCAN']!.count;
    // --pipe: 1000 SETs and its closing ECHO; -3 its HELLO 3 and the HSET; --scan one round trip each.
    expect(t).toMatchObject({ commands: 1000 + 1 + 2 + 1 + scans, replies: 1000 + 1 + 2 + 1 + scans, pushes: 0, errorReplies: 0 });
    expect(env.proxy.stats().commands['ECHO']?.count).toBe(1);
  });

  it('redis-cli MONITOR and --stat: monitor lines are pushes, INFO is counted as Redis ran it', async () => {
    const mon = spawn('redis-cli', ['-h', env.proxy.host!, '-p', String(env.proxy.port), 'MONITOR'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let lines = '';
    mon.stdout.on('data', (c: Buffer) => (lines += c.toString()));
    const stat = spawn('redis-cli', ['-h', env.proxy.host!, '-p', String(env.proxy.port), '--stat', '-i', '0.05'], { stdio: 'ignore' });
    try {
      await vi.waitUntil(() => lines.startsWith('OK'), WAIT);
      await cli('SET', 'seen', '1');
      await vi.waitUntil(() => lines.includes('"SET" "seen" "1"'), WAIT);
      await vi.waitUntil(() => (env.proxy.stats().commands['INFO']?.count ?? 0) >= 3, WAIT);
      // --stat stops first, once its last INFO was answered (killed with one on the up link, the
      // proxy would count an INFO Redis never got); a last SET's line then follows every line
      // before it to redis-cli.
      stat.kill('SIGSTOP');
      await vi.waitUntil(() => env.proxy.stats().tap?.pendingRequests === 0, WAIT);
      await stop(stat, 'SIGKILL');
      await cli('SET', 'last', '1');
      await vi.waitUntil(() => lines.includes('"SET" "last" "1"'), WAIT);
    } finally {
      await Promise.all([stop(stat), stop(mon)]);
    }
    await sameAsRedis();
    // One push per monitor line: every command after MONITOR, --stat's INFOs and the SET.
    const shown = lines.trim().split('\n').length - 1;
    expect(totals(env.proxy)).toMatchObject({ commands: 3 + env.proxy.stats().commands['INFO']!.count, pushes: shown });
    expect(totals(env.proxy).replies).toBe(totals(env.proxy).commands);
  });

  it('redis-py: a pipeline, a transaction with an error, pub/sub', async () => {
    const script = `
import redis, sys
r = redis.Redis(host="${env.proxy.host!}", port=${env.proxy.port})
p = r.pipeline(transaction=False)
for i in range(100): p.set(f"py{i}", i)  # one write: redis-py packs up to 6000 bytes a send
p.execute()
t = r.pipeline()
t.incr("n"); t.lpush("py1", "x"); t.get("n")
print(repr(t.execute(raise_on_error=False)[1]))
ps = r.pubsub()
ps.subscribe("c1", "c2")
for _ in range(2): ps.get_message(timeout=5)
ps.psubscribe("p*"); ps.get_message(timeout=5)
r.publish("c1", "m1"); r.publish("px", "m2")
got = [ps.get_message(timeout=5)["data"] for _ in range(2)]
ps.unsubscribe()
for _ in range(2): ps.get_message(timeout=5)
ps.punsubscribe(); ps.get_message(timeout=5)
ps.close()
print(got, r.mget([f"py{i}" for i in range(3)]))
r.close()
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script]);
    expect(stdout).toBe("ResponseError('WRONGTYPE Operation against a key holding the wrong kind of value')\n[b'm1', b'm2'] [b'0', b'1', b'2']\n");
    await sameAsRedis();
    // Round trips: the pipeline, the transaction, SUBSCRIBE, PSUBSCRIBE, 2 PUBLISH, UNSUBSCRIBE,
    // PUNSUBSCRIBE, MGET. SUBSCRIBE and UNSUBSCRIBE each have 2 confirmations.
    expect(totals(env.proxy)).toEqual({ commands: 100 + 5 + 2 + 2 + 2 + 1, replies: 100 + 5 + 2 + 2 + 2 + 1 + 2, pushes: 2, roundTrips: 9, errorReplies: 0 });
  });

  it('redis-benchmark -3 -P 10, one client: every command and round trip', async () => {
    await run('redis-benchmark', ['-3', '-h', env.proxy.host!, '-p', String(env.proxy.port), '-c', '1', '-n', '200', '-P', '10', '-t', 'set,get,lpush,lrange_100,mset', '-q']);
    await sameAsRedis();
    const s = env.proxy.stats();
    // Six tests (lrange_100 fills its list with an LPUSH test of its own) of 200 in batches of 10, each
    // on a connection of its own whose HELLO 3 goes with its first batch; the two CONFIG GETs at start
    // together.
    expect(s.commands['LPUSH']?.count).toBe(400);
    expect(s.commands['HELLO']?.count).toBe(6);
    expect(s.totals).toMatchObject({ commands: 1208, replies: 1208, pushes: 0, roundTrips: 121, maxDepth: 11 });
    expect(s.totals.depthHistogram).toEqual({ '2-3': 1, '8-15': 120 });
  });

  it('raw sessions as nc sends them: inline lines, a 10k pipeline, a 10k-key MGET, a value over the high water', async () => {
    const raw = await Raw.open(env.proxy);
    // LF-only lines, a blank line, quotes and escapes, a line split across two writes.
    await raw.send('SET a "x y"\nGET a\n\n  \r\nECHO "\\x41\\n"\r\nPI', '$2\r\nA\n\r\n');
    await raw.send('NG\n', '+PONG\r\n');
    expect(raw.text).toBe('+OK\r\n$3\r\nx y\r\n$2\r\nA\n\r\n+PONG\r\n');
    const keys = Array.from({ length: 10_000 }, (_, i) => `p${i}`);
    await raw.send(keys.map((k) => `SET ${k} ${k}\r\n`).join(''), `${'+OK\r\n'.repeat(10)}`);
    await vi.waitUntil(() => env.proxy.stats().totals.replies === 4 + 10_000, WAIT);
    await raw.send(`MGET ${keys.join(' ')}\r\n`, '$5\r\np9999\r\n');
    const big = 'v'.repeat(16 << 20);
    raw.socket.write(`*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$${big.length}\r\n${big}\r\nGET big\r\n`);
    await vi.waitUntil(() => raw.text.endsWith(`$${big.length}\r\n${big}\r\n`), { timeout: 20_000, interval: 20 });
    raw.close();
    await sameAsRedis();
    expect(totals(env.proxy)).toEqual({ commands: 4 + 10_000 + 1 + 2, replies: 4 + 10_000 + 1 + 2, pushes: 0, roundTrips: 5, errorReplies: 0 });
    expect(env.proxy.stats().totals.maxDepth).toBe(10_000);
  });

  it('a pipeline past the pending bound, then a loop on the same connection: every reply and round trip counted', async () => {
    const link = { upUs: 300, downUs: 500 };
    const bounded = await startSingleNodeProxy({ upstream: env.redis.address, link, compensationUs: { up: 0, down: 0 }, maxPendingPerConnection: 100 });
    try {
      const raw = await Raw.open(bounded);
      await raw.send(Array.from({ length: 1000 }, (_, i) => `SET b${i} ${i}\r\n`).join(''), 'OK\r\n');
      await vi.waitUntil(() => raw.text.length === 1000 * 5, WAIT);
      for (let i = 0; i < 3; i++) await raw.send('GET b1\r\n', `${'$1\r\n1\r\n'.repeat(i + 1)}`);
      raw.close();
      await vi.waitUntil(() => bounded.stats().connections.active === 0, WAIT);
      const s = bounded.stats();
      // The first 100 SETs were timed, the rest counted in a window of their own round trip.
      expect(s.totals).toMatchObject({ commands: 1003, replies: 1003, pushes: 0, roundTrips: 4, maxDepth: 100 });
      expect(s.totals.depthHistogram).toEqual({ '1': 3, '512-1023': 1 });
      expect(s.commands['GET']?.clientUs.count).toBe(3);
      expect(s.tap).toMatchObject({ pendingRequests: 0, degradedConnections: 1 });
    } finally {
      await bounded.close();
    }
  });
});
