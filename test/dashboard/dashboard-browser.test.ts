/**
 * The dashboard in real headless Chromium, in front of a real redis-server: opened once with the
 * control token (which becomes a cookie and leaves the address), it shows traffic that redis-cli
 * drives, its RTT control changes the link both /stats and a client's PINGs see, a bad value shows
 * the API's error and changes nothing, and a toxic is added and removed from the page. Set
 * UPDATE_SCREENSHOTS=1 to write docs/dashboard.png (the picture docs/dashboard.md shows).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startProxy } from '../../src/cluster/start-proxy.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import type { StatsSnapshot } from '../../src/stats/types.js';
import type { ToxicSpec } from '../../src/toxics/types.js';
import { controlRequest } from '../hardening/helpers/http.js';
import { median, proxyClient } from '../proxy/helpers.js';
import { openBrowser, type OpenBrowser } from './browser.js';

const run = promisify(execFile);
const TOKEN = 'dash-s3cret';
const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-dashboard-'));
const screenshot = process.env.UPDATE_SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs/dashboard.png') : join(dir, 'dashboard.png');

let redis: PrivateRedis;
let proxy: RedisRttProxy;
let b: OpenBrowser;
let base: string;

async function stats(): Promise<StatsSnapshot> {
  const r = await controlRequest(proxy.controlAddress!, 'GET', '/stats', { token: TOKEN });
  return JSON.parse(r.body) as StatsSnapshot;
}

async function pingRttUs(n: number): Promise<number> {
  const c = proxyClient(proxy);
  try {
    await c.connect();
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      await c.ping();
      times.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    return median(times);
  } finally {
    c.disconnect();
  }
}

const figure = (name: string): Promise<string> => b.page.locator(`[data-figure="${name}"]`).first().innerText();

beforeAll(async () => {
  redis = await startPrivateRedis();
  proxy = await startProxy({
    upstream: redis.address,
    listen: '127.0.0.1:0',
    control: '127.0.0.1:0',
    controlToken: TOKEN,
    link: { rttUs: 2000 },
    compensationUs: { up: 0, down: 0 },
    log: () => {},
  });
  base = `http://localhost:${proxy.controlAddress!.split(':').pop()}`;
  b = await openBrowser();
}, 60_000);

afterAll(async () => {
  await b?.close();
  await proxy?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the dashboard in Chromium', () => {
  it('opened once with ?token=, keeps the token in an HttpOnly cookie and drops it from the address', async () => {
    const bare = await b.context.request.get(`${base}/events`, { failOnStatusCode: false, maxRedirects: 0 });
    expect(bare.status()).toBe(401);
    await b.page.goto(`${base}/?token=${TOKEN}`);
    expect(b.page.url()).toBe(`${base}/`);
    const [cookie] = await b.context.cookies();
    expect(cookie).toMatchObject({ value: TOKEN, httpOnly: true, sameSite: 'Strict' });
    expect(await b.page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe('');
    await vi.waitFor(async () => expect(await b.page.locator('#status').innerText()).toBe('live'), { timeout: 15_000, interval: 100 });
  });

  it('shows the commands redis-cli sends, per second and per command', async () => {
    await run('redis-cli', ['-h', proxy.host!, '-p', String(proxy.port), '-r', '200', 'INCR', 'dashboard:n'], { timeout: 30_000 });
    await vi.waitFor(
      async () => {
        expect(Number.parseFloat(await figure('commands'))).toBeGreaterThan(0);
        expect(await b.page.locator('#commands-body tr', { hasText: 'INCR' }).locator('td').nth(1).innerText()).toBe('200');
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(Number.parseFloat(await figure('roundTrips'))).toBeGreaterThan(0);
    expect(await figure('bytesUp')).toMatch(/B\/s$/);
    expect(await b.page.locator('#chart svg[data-chart="dashboard-latency"] [data-series]').count()).toBeGreaterThanOrEqual(2);
    expect(await figure('link')).toContain('RTT 2 ms (up 1 ms, down 1 ms)');
  });

  it('a bad RTT shows the API\'s error beside the control and leaves the link as it was', async () => {
    const before = (await stats()).link;
    await b.page.fill('#rtt-input', '-5');
    await b.page.click('#rtt-apply');
    await vi.waitFor(async () => expect(await b.page.locator('#rtt-error').innerText()).toMatch(/rttUs/), { timeout: 10_000, interval: 50 });
    await b.page.fill('#rtt-input', 'fast');
    await b.page.click('#rtt-apply');
    await vi.waitFor(async () => expect(await b.page.locator('#rtt-error').innerText()).toMatch(/rttUs.*microseconds/), { timeout: 10_000, interval: 50 });
    expect((await stats()).link).toEqual(before);
  });

  it('the RTT control changes the link in /stats and the RTT a client measures', async () => {
    const slowUs = 30_000;
    const beforeUs = await pingRttUs(5);
    expect(beforeUs).toBeLessThan(slowUs / 2);
    await b.page.fill('#rtt-input', '30');
    await b.page.click('#rtt-apply');
    await vi.waitFor(async () => expect((await stats()).link).toMatchObject({ upUs: 15_000, downUs: 15_000 }), { timeout: 10_000, interval: 50 });
    expect(await b.page.locator('#rtt-error').innerText()).toBe('');
    const afterUs = await pingRttUs(5);
    expect(afterUs).toBeGreaterThanOrEqual(slowUs);
    expect(afterUs).toBeLessThan(slowUs + 40_000);
    await vi.waitFor(async () => expect(await figure('link')).toContain('RTT 30 ms (up 15 ms, down 15 ms)'), { timeout: 10_000, interval: 100 });
  });

  it('adds a toxic from the form and removes it with its button', async () => {
    await b.page.selectOption('#toxic-type', 'latency');
    await b.page.fill('#toxic-name', 'slow_down');
    await b.page.fill('#toxic-attributes', '{"latency": "soon"}');
    await b.page.click('#toxic-add');
    await vi.waitFor(async () => expect(await b.page.locator('#toxic-error').innerText()).toMatch(/latency/), { timeout: 10_000, interval: 50 });
    expect(proxy.toxics()).toEqual([]);
    await b.page.fill('#toxic-attributes', '{"latency": 1}');
    await b.page.click('#toxic-add');
    await vi.waitFor(async () => expect(await b.page.locator('#toxics-body tr', { hasText: 'slow_down' }).count()).toBe(1), { timeout: 10_000, interval: 50 });
    expect(proxy.toxics().map((t: ToxicSpec) => [t.name, t.type, t.attributes.latency])).toEqual([['slow_down', 'latency', 1]]);
    await b.page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(20_000);
    await b.page.click('button[data-toxic="slow_down"]');
    await vi.waitFor(() => expect(proxy.toxics()).toEqual([]), { timeout: 10_000, interval: 50 });
    await vi.waitFor(async () => expect(await b.page.locator('#toxics-empty').isVisible()).toBe(true), { timeout: 10_000, interval: 100 });
  });

  it('asked for nothing but its own origin', () => {
    expect(b.requests.filter((u) => !u.startsWith(`${base}/`))).toEqual([]);
  });

  it('closing the proxy ends the open stream, and the page says so', async () => {
    expect((await stats()).connections).toBeDefined();
    await proxy.close();
    await vi.waitFor(async () => expect(await b.page.locator('#status').innerText()).toMatch(/disconnected/), { timeout: 15_000, interval: 100 });
  });
});
