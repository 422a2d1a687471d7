import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { monotonicNs } from '../../src/clock.js';
import { startProxy } from '../../src/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';
import { openEvents } from '../dashboard/events-client.js';
import { proxyClient, rawSocket } from './helpers.js';

const MS = 1e6;
const run = promisify(execFile);

/** A moving link through the real proxy: ioredis sees the RTT the series and the schedule set, when they set it. */
describe('a link that changes over time, with a real client', () => {
  let redis: PrivateRedis;
  let dir: string;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    dir = await mkdtemp(join(tmpdir(), 'rtt-over-time-'));
  });
  afterAll(async () => {
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('replays a ping -D series: 2 ms, then 40 ms from 1 s, kept with once', async () => {
    const series = ['[1764651600.000000] 64 bytes from 10.0.0.7: icmp_seq=1 ttl=57 time=2.0 ms', '[1764651601.000000] 64 bytes from 10.0.0.7: icmp_seq=2 ttl=57 time=40.0 ms'].join('\n');
    const proxy = await startSingleNodeProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, rttSeries: series, rttSeriesOnce: true });
    const c = proxyClient(proxy);
    try {
      await c.connect();
      const ping = async (): Promise<number> => {
        const t = monotonicNs();
        await c.ping();
        return (monotonicNs() - t) / MS;
      };
      // The least of three: one PING stalled 25 ms on a loaded CI machine; the 40 ms row is 1 s away.
      const early = Math.min(await ping(), await ping(), await ping());
      expect(proxy.stats().timeline?.series).toEqual({ row: 0, rows: 2, once: true });
      expect(early).toBeLessThan(20);
      await vi.waitUntil(() => proxy.stats().timeline?.series?.row === 1, { timeout: 5000, interval: 20 });
      const late = await ping();
      expect(late).toBeGreaterThanOrEqual(39);
      expect(late).toBeLessThan(40 + 150);
      expect(proxy.stats().timeline?.delaysUs).toEqual({ upUs: 20_000, downUs: 20_000 });
    } finally {
      c.disconnect();
      await proxy.close();
    }
  });

  it('runs a schedule: the step applies at its time, /stats names it, a GET pays the new RTT', async () => {
    const proxy = await startSingleNodeProxy({
      upstream: redis.address,
      link: { rttUs: 1000 },
      compensationUs: { up: 0, down: 0 },
      linkSchedule: [{ at: '800ms', link: { rttUs: 30_000 } }],
    });
    const c = proxyClient(proxy);
    try {
      await c.connect();
      expect(proxy.stats().timeline?.schedule).toEqual({ step: -1, steps: 1, loop: 0, nextAtMs: 800, skipped: 0 });
      await vi.waitUntil(() => proxy.stats().timeline?.schedule?.step === 0, { timeout: 5000, interval: 10 });
      expect(proxy.link()).toMatchObject({ upUs: 15_000, downUs: 15_000 });
      const t = monotonicNs();
      await c.get('k');
      expect((monotonicNs() - t) / MS).toBeGreaterThanOrEqual(29);
    } finally {
      c.disconnect();
      await proxy.close();
    }
  });

  // /metrics' link gauges and the dashboard's link are the settings under the series: a graph of a moving link was flat.
  it('/metrics and the dashboard show the delays that run now, beside the settings under them', async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, rttSeries: '0,4', control: '127.0.0.1:0' });
    const events = await openEvents(proxy.controlAddress!);
    try {
      const text = await (await fetch(`http://${proxy.controlAddress}/metrics`)).text();
      expect(text).toMatch(/^redis_rtt_link_up_delay_seconds 0$/m);
      expect(text).toMatch(/^redis_rtt_link_now_up_delay_seconds 0\.002$/m);
      expect(text).toMatch(/^redis_rtt_link_now_down_delay_seconds 0\.002$/m);
      const e = await events.next((ev) => ev.linkNow !== undefined);
      expect(e.linkNow).toEqual({ upUs: 2000, downUs: 2000 });
      expect(e.link).toMatchObject({ upUs: 0, downUs: 0 });
    } finally {
      events.req.destroy();
      await proxy.close();
    }
  });

  // The handshake was charged the flags' RTT (0 here), not the series': a new connection's first reply came one RTT early.
  it("a new connection's handshake pays the RTT the series has now, not the flags' link under it", async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, rttSeries: '0,60', rttSeriesOnce: true });
    const s = await rawSocket(proxy.host!, proxy.port!);
    try {
      const t = monotonicNs();
      s.write('PING\r\n');
      await new Promise((resolve) => s.once('data', resolve));
      // The handshake's 60 ms, then the PING's 60 ms; the handshake runs from the accept, which a loaded machine
      // makes a few ms before the client hears of its connect (without it: 60 ms).
      const ms = (monotonicNs() - t) / MS;
      expect(ms).toBeGreaterThan(100);
      expect(ms).toBeLessThan(120 + 300);
    } finally {
      s.destroy();
      await proxy.close();
    }
  });

  // A square wave of +-10 ms around 20 ms: redis-py, in a process of its own, sees both 10 ms and 30 ms round trips
  // and nothing under the wave's low; redis-cli's commands through it get every reply in order.
  it('a PUT /link that sets delays ends a ramp under way; one that sets only the loss or the jitter leaves it running', async () => {
    const proxy = await startSingleNodeProxy({
      upstream: redis.address,
      link: { rttUs: 1000 },
      compensationUs: { up: 0, down: 0 },
      linkSchedule: [{ at: '0s', link: { rttUs: 201_000 }, ramp: '60s' }],
    });
    try {
      const upUs = (): number => proxy.stats().timeline!.delaysUs.upUs;
      // The ramp moves 1.67 us of one-way delay a millisecond: 500 us of it within a third of a second.
      const first = await vi.waitUntil(() => (upUs() > 600 ? upUs() : false), { timeout: 5000, interval: 20 });
      proxy.setLink({ loss: 0.01, jitterUs: 10 });
      await vi.waitUntil(() => upUs() > first + 500, { timeout: 5000, interval: 20 });
      proxy.setLink({ rttUs: 4000 });
      expect(proxy.stats().timeline?.delaysUs).toEqual({ upUs: 2000, downUs: 2000 });
      const heldFrom = monotonicNs();
      await vi.waitUntil(() => monotonicNs() - heldFrom > 300 * MS, { timeout: 5000, interval: 50 });
      expect(proxy.stats().timeline?.delaysUs).toEqual({ upUs: 2000, downUs: 2000 });
    } finally {
      await proxy.close();
    }
  });

  it('a square wave through the proxy: redis-py pays 10 ms and 30 ms in turn; redis-cli gets its replies in order', async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 20_000 }, compensationUs: { up: 0, down: 0 }, rttWave: 'square:400ms:10ms' });
    try {
      const script = [
        'import redis, sys, time',
        'r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]))',
        'r.ping()',
        'out = []',
        'end = time.monotonic() + 1.6',
        'while time.monotonic() < end:',
        '    t = time.monotonic(); r.ping(); out.append((time.monotonic() - t) * 1000)',
        'print(" ".join("%.2f" % x for x in out))',
      ].join('\n');
      const py = await run('/usr/bin/python3', ['-c', script, String(proxy.port)], { timeout: 20_000 });
      const ms = py.stdout.trim().split(' ').map(Number);
      expect(ms.length).toBeGreaterThan(40);
      expect(Math.min(...ms)).toBeGreaterThanOrEqual(9.5);
      // Each half period (200 ms) holds several round trips at its own RTT; one that spans an edge pays between.
      expect(ms.filter((x) => x < 15).length).toBeGreaterThan(8);
      expect(ms.filter((x) => x >= 29.5 && x < 45).length).toBeGreaterThan(4);
      const cmds = Array.from({ length: 50 }, (_, i) => `ECHO e${i}`).join('\n') + '\n';
      const cli = await new Promise<string>((resolve, reject) => {
        const child = execFile('redis-cli', ['-p', String(proxy.port)], { timeout: 20_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
        child.stdin!.end(cmds);
      });
      expect(cli.trim().split('\n')).toEqual(Array.from({ length: 50 }, (_, i) => `e${i}`));
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it('the CLI refuses a zero period, an unsorted schedule and a series with no rows: exit 2, the flag named, before it dials Redis', async () => {
    const schedule = join(dir, 'schedule.json');
    await writeFile(schedule, JSON.stringify([{ at: '2s', link: {} }, { at: '1s', link: {} }]));
    const empty = join(dir, 'empty.csv');
    await writeFile(empty, 'seconds,rtt_ms\n');
    const cases: [string[], RegExp][] = [
      [['--rtt-wave', 'sine:0s:5ms'], /--rtt-wave period: invalid value "0s"; expected a period above 0/],
      [['--link-schedule', schedule], /--link-schedule steps\[1\]\.at: .*steps in time order/],
      [['--rtt-series', empty], /--rtt-series: .*at least one row/],
    ];
    // Port 1 refuses: the start's cluster discovery logs that it failed. A wave or a series was checked only after
    // that dial, so a typo waited for the upstream's connect (10 s to a host that does not answer).
    const runs = await Promise.all(cases.map(([flags]) => runCli(['proxy', '--upstream', '127.0.0.1:1', ...flags])));
    runs.forEach((r, i) => {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(cases[i]![1]);
      expect(r.stderr).not.toMatch(/discovery/);
      expect(r.stdout).toBe('');
    });
  });

  it('rttSeriesOnce without rttSeries is refused as --rtt-series-once alone is: in a config file and in the library', async () => {
    // Only the flag was checked: the key alone started a proxy whose link never moved, without a word.
    const config = join(dir, 'once.json');
    await writeFile(config, JSON.stringify({ upstream: redis.address, listen: '127.0.0.1:0', rttSeriesOnce: true }));
    const r = await runCli(['proxy', '--config', config, '--compensate', '0']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    // Named by the file's key: the user typed no --rtt-series-once.
    expect(r.stderr).toMatch(/^redis-rtt: \S+once\.json: rttSeriesOnce: invalid value true; expected only with a series to replay \(--rtt-series, rttSeries\)$/m);
    await expect(startProxy({ upstream: redis.address, listen: '127.0.0.1:0', rttSeriesOnce: true })).rejects.toThrow(
      /^rttSeriesOnce: invalid value true; expected only with a series to replay \(--rtt-series, rttSeries\)/,
    );
  });

  it("--rtt-series-once ends a config file's rttSeries (it was refused as without --rtt-series)", async () => {
    const config = join(dir, 'series.json');
    await writeFile(config, JSON.stringify({ upstream: redis.address, rttSeries: '0,1.2\n10,5' }));
    const r = await runCli(['proxy', '--config', config, '--rtt-series-once', '--print-config']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rttSeries: '0,1.2\n10,5', rttSeriesOnce: true });
  });
});
