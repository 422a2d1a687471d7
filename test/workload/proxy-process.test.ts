/**
 * Each bench link's proxy runs in a process of its own (src/workload/proxy-process). These check
 * that it carries the proxy's stats and CPU back over IPC, and that no proxy process outlives its
 * driver: after a normal run, an error, Ctrl-C to the process group, or the driver killed outright.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PROXY_PROCESS_V8_FLAGS } from '../../src/proxy/gc-flags.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runBench } from '../../src/workload/bench.js';
import { CHILD_ENTRY, liveProxyProcesses, startProxyProcess } from '../../src/workload/proxy-process/spawn.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis.stop();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of the proxy processes whose parent is `parentPid`, from /proc (Linux). */
function proxyChildrenOf(parentPid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parentPid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('proxy-process/child.js')) pids.push(Number(entry));
    } catch {
      // a process that ended between the listing and the read
    }
  }
  return pids;
}

const WAIT = { timeout: 5000, interval: 20 };

describe('a proxy process', () => {
  it('runs the proxy in another process and reads its stats and CPU over IPC', async () => {
    const proxy = await startProxyProcess({ upstream: redis.address, listen: '127.0.0.1:0', link: { rttUs: 1000 }, compensationUs: { up: 40, down: 40 } }, { label: 'rtt=1ms' });
    const [host, port] = proxy.address.split(':') as [string, string];
    const client = new Redis({ host, port: Number(port), lazyConnect: true, disableClientInfo: true, protocol: 2 });
    try {
      expect(proxy.pid).not.toBe(process.pid);
      expect(alive(proxy.pid)).toBe(true);
      // Node's flags for a proxy process (no memory reducer), not the test runner's.
      const argv = readFileSync(`/proc/${proxy.pid}/cmdline`, 'utf8').split('\0');
      expect(argv.slice(1, 1 + PROXY_PROCESS_V8_FLAGS.length)).toEqual(PROXY_PROCESS_V8_FLAGS);
      expect(proxy.compensationUs).toEqual({ up: 40, down: 40 });
      await client.connect();
      const before = await proxy.read();
      for (let i = 0; i < 20; i++) await client.incr('pp:counter');
      const after = await proxy.read();
      expect(after.stats.totals.commands - before.stats.totals.commands).toBe(20);
      expect(after.stats.totals.roundTrips - before.stats.totals.roundTrips).toBe(20);
      expect(after.stats.commands.INCR?.count).toBe(20);
      expect(after.stats.commands.INCR?.clientUs.count).toBe(20);
      expect(after.stats.self?.lateUs.count).toBeGreaterThan(0);
      expect(after.cpuUs).toBeGreaterThan(before.cpuUs);
      // A reading leaves out what answering reads cost (0.2-0.5 ms each, ms when cold): back-to-back reads,
      // with nothing between them, differ by receiving a message (20-90 us at load 15; 190-370 us before).
      const idleUs: number[] = [];
      let last = after;
      for (let i = 0; i < 10; i++) {
        const next = await proxy.read();
        idleUs.push(next.cpuUs - last.cpuUs);
        last = next;
      }
      expect(Math.min(...idleUs), idleUs.join(' ')).toBeLessThan(150);
    } finally {
      client.disconnect();
      await proxy.close();
    }
    expect(alive(proxy.pid)).toBe(false);
    expect(liveProxyProcesses()).toBe(0);
    await proxy.close(); // idempotent
  });

  it('passes the proxy\'s start-up error back and leaves no process', async () => {
    await expect(startProxyProcess({ upstream: redis.address, listen: '127.0.0.1:0', link: { rttUs: -5 } })).rejects.toThrow(/rtt/i);
    await vi.waitUntil(() => liveProxyProcesses() === 0, WAIT);
  });

  it('runs in a process group of its own, so a terminal\'s Ctrl-C cannot kill it while it loads', async () => {
    const proxy = await startProxyProcess({ upstream: redis.address, listen: '127.0.0.1:0' }, { label: 'local' });
    try {
      const pgrp = (pid: number): number => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
      expect(pgrp(proxy.pid)).toBe(proxy.pid);
      expect(pgrp(proxy.pid)).not.toBe(pgrp(process.pid));
    } finally {
      await proxy.close();
    }
  });

  it('fails a read, naming the link, when its process dies', async () => {
    const proxy = await startProxyProcess({ upstream: redis.address, listen: '127.0.0.1:0' }, { label: 'local' });
    process.kill(proxy.pid, 'SIGKILL');
    await vi.waitUntil(() => !alive(proxy.pid), WAIT);
    await expect(proxy.read()).rejects.toThrow(/the proxy process of local \(pid \d+\) was killed by SIGKILL/);
    await proxy.close();
    expect(liveProxyProcesses()).toBe(0);
  });

  it('ends by itself when its driver is killed outright (SIGKILL runs no handler)', async () => {
    const script =
      `const { startProxyProcess } = await import(${JSON.stringify(CHILD_ENTRY.replace(/child\.js$/, 'spawn.js'))});` +
      `const p = await startProxyProcess({ upstream: ${JSON.stringify(redis.address)}, listen: '127.0.0.1:0' });` +
      'process.stdout.write(`${p.pid}\\n`); setInterval(() => {}, 1000);';
    const driver = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    driver.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await vi.waitUntil(() => /^\d+\n/.test(out), { timeout: 20_000, interval: 20 });
    const pid = Number(out.trim());
    expect(alive(pid)).toBe(true);
    driver.kill('SIGKILL');
    await vi.waitUntil(() => !alive(pid), WAIT);
  }, 30_000);
});

describe('bench leaves no proxy process', () => {
  it('after a normal run', async () => {
    const report = await runBench({ links: ['local', 'rtt=1ms'], redis: redis.address, allowNonempty: true, keyPrefix: 'pp1:', workload: 'incr', modes: ['seq'], n: 10, repeat: 1, warmup: 0, driverWarmupMs: 0 });
    expect(report.results.map((r) => r.error ?? r.roundTrips)).toEqual([10, 10]);
    for (const r of report.results) expect(r.breakdown!.proxyCpuMs).toBeGreaterThan(0);
    expect(report.method.proxies).toBe('own-process');
    expect(liveProxyProcesses()).toBe(0);
  });

  it('after an error in the middle of the run', async () => {
    let pids: number[] = [];
    const failing = runBench(
      { links: ['local', 'rtt=1ms'], redis: redis.address, allowNonempty: true, keyPrefix: 'pp2:', workload: 'incr', modes: ['seq'], n: 10, repeat: 3, warmup: 0, driverWarmupMs: 0 },
      (ev) => {
        if (ev.type !== 'sample') return;
        pids = proxyChildrenOf(process.pid);
        throw new Error('the progress printer broke');
      },
    );
    await expect(failing).rejects.toThrow('the progress printer broke');
    expect(pids).toHaveLength(2);
    expect(liveProxyProcesses()).toBe(0);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it('after a refusal before any link opened (the processes forked ahead are closed too)', async () => {
    const admin = new Redis({ host: '127.0.0.1', port: redis.port!, lazyConnect: true, disableClientInfo: true });
    await admin.connect();
    await admin.set('pp3:theirs', 'x');
    try {
      await expect(runBench({ links: ['local', 'rtt=1ms'], redis: redis.address, keyPrefix: 'pp3:', n: 10, repeat: 1 })).rejects.toThrow(/--allow-nonempty/);
      expect(liveProxyProcesses()).toBe(0);
    } finally {
      await admin.del('pp3:theirs');
      admin.disconnect();
    }
  });

  it('after Ctrl-C to the whole process group: the run reports what finished, then every proxy is gone', async () => {
    const cli = spawn(process.execPath, ['bin/redis-rtt.js', 'bench', '--links', 'local,rtt=5ms', '--workload', 'incr', '--modes', 'seq', '-n', '200', '--repeat', '50', '--warmup', '0', '--driver-warmup', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own group, signalled as a terminal does (the proxies are in groups of their own).
      detached: true,
    });
    let err = '';
    cli.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // 'close', not 'exit': stderr may still hold the end of the story when the process has exited.
    const exited = new Promise<number | null>((resolve) => cli.on('close', (c) => resolve(c)));
    await vi.waitUntil(() => /\[2\/\d+\] sample/.test(err), { timeout: 30_000, interval: 20 });
    const pids = proxyChildrenOf(cli.pid!);
    expect(pids, err).toHaveLength(2);
    process.kill(-cli.pid!, 'SIGINT');
    expect(await exited, err).toBe(130);
    expect(err).toMatch(/stopped on request/);
    // The proxies outlived the signal long enough to be read: the rows carry their counts.
    expect(err).toMatch(/^rtt=5ms\s+seq\b.*\s200\s+200\s/m);
    await vi.waitUntil(() => pids.every((pid) => !alive(pid)), WAIT);
  }, 60_000);

  it('after Ctrl-C to the group while the proxies still load: stopped on request, not their start-up error', async () => {
    const cli = spawn(process.execPath, ['bin/redis-rtt.js', 'bench', '--links', 'rtt=5ms,rtt=10ms', '--clients', '1', '--rate', '100', '--duration', '2s'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let err = '';
    cli.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // 'close', not 'exit': stderr may still hold the end of the story when the process has exited.
    const exited = new Promise<number | null>((resolve) => cli.on('close', (c) => resolve(c)));
    // Forked, not yet loaded: the link's proxy is not listening until its process has loaded.
    await vi.waitUntil(() => proxyChildrenOf(cli.pid!).length === 2, { timeout: 10_000, interval: 5 });
    const pids = proxyChildrenOf(cli.pid!);
    process.kill(-cli.pid!, 'SIGINT');
    expect(await exited, err).toBe(130);
    // Whether the run stopped before its first row or a child forked in that instant died of the same
    // signal (it is in our group until it execs), it says it stopped on request: no stack trace.
    expect(err).toMatch(/stopped on request/);
    expect(err).not.toMatch(/^\s+at /m);
    await vi.waitUntil(() => pids.every((pid) => !alive(pid)), WAIT);
  }, 30_000);
});
