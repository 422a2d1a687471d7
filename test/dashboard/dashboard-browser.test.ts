/**
 * The dashboard in real headless Chromium, in front of a real redis-server: opened once with the
 * control token (which becomes a cookie and leaves the address), it shows traffic that redis-cli
 * drives, its RTT control changes the link both /stats and a client's PINGs see, a bad value shows
 * the API's error and changes nothing, a change the API warns about shows the warning, a toxic
 * is added and removed from the page (a Remove held across events too), and a refused stream is
 * opened again. Set UPDATE_SCREENSHOTS=1 to write docs/dashboard.png (the picture docs/dashboard.md
 * shows).
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
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
import { startToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';
import { controlRequest } from '../hardening/helpers/http.js';
import { median, proxyClient } from '../proxy/helpers.js';
import { dashboardEvent } from '../../src/dashboard/event.js';
import { StatsWindow } from '../../src/dashboard/stats-window.js';
import { newCounters } from '../../src/tap/counters.js';
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

/**
 * A site on another port of localhost: another origin, but the same site, so a SameSite=Strict
 * cookie of the dashboard's is sent with its requests. Its page tries every way a page can write to
 * the control endpoint, and notes what the browser let it see.
 */
async function startEvilSite(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const body = JSON.stringify({ rttUs: 1 });
  const html = `<!doctype html><title>running</title><iframe name="sink"></iframe>
<form id="f" method="POST" action="${target}/link" enctype="text/plain" target="sink"><input name='{"rttUs":1,"x":"' value='"}'></form>
<script>
const outcomes = (window.outcomes = {});
const T = ${JSON.stringify(target)};
const attempt = (name, p) => p.then((r) => (outcomes[name] = r.type === 'opaque' ? 'opaque' : 'read ' + r.status), () => (outcomes[name] = 'failed'));
const events = new Promise((resolve) => {
  const es = new EventSource(T + '/events', { withCredentials: true });
  es.onmessage = () => { outcomes.events = 'read'; es.close(); resolve(); };
  es.onerror = () => { outcomes.events = 'failed'; es.close(); resolve(); };
});
Promise.all([
  attempt('putLink', fetch(T + '/link', { method: 'PUT', credentials: 'include', headers: { 'content-type': 'application/json' }, body: '${body}' })),
  attempt('simplePostLink', fetch(T + '/link', { method: 'POST', mode: 'no-cors', credentials: 'include', body: '${body}' })),
  attempt('simplePostToxic', fetch(T + '/toxics', { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{"type":"latency","attributes":{"latency":1000}}' })),
  attempt('simplePostReset', fetch(T + '/reset', { method: 'POST', mode: 'no-cors', credentials: 'include' })),
  attempt('readStats', fetch(T + '/stats', { credentials: 'include' })),
  events,
  new Promise((resolve) => { document.querySelector('iframe').onload = resolve; document.getElementById('f').submit(); outcomes.form = 'sent'; }),
]).then(() => { document.title = 'done'; });
</script>`;
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://localhost:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

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
    // From 2 ms to 100 ms: a step a loaded machine's noise (tens of ms on a busy CI host) cannot hide.
    const slowUs = 100_000;
    const beforeUs = await pingRttUs(5);
    await b.page.fill('#rtt-input', '100');
    await b.page.click('#rtt-apply');
    await vi.waitFor(async () => expect((await stats()).link).toMatchObject({ upUs: 50_000, downUs: 50_000 }), { timeout: 10_000, interval: 50 });
    expect(await b.page.locator('#rtt-error').innerText()).toBe('');
    const afterUs = await pingRttUs(5);
    expect(afterUs).toBeGreaterThanOrEqual(slowUs);
    expect(afterUs - beforeUs).toBeGreaterThan(slowUs / 2);
    expect(afterUs).toBeLessThan(3 * slowUs);
    await vi.waitFor(async () => expect(await figure('link')).toContain('RTT 100 ms (up 50 ms, down 50 ms)'), { timeout: 10_000, interval: 100 });
  });

  it("a change PUT /link warns about shows the API's warnings beside the control; the next change clears them", async () => {
    // 200 ms of uniform jitter on the 50 ms one-way delay reaches zero delay (jitterFloorWarning).
    await b.page.fill('#jitter-input', '200');
    await b.page.click('#jitter-apply');
    await vi.waitFor(async () => expect((await stats()).link).toMatchObject({ jitterUs: 200_000 }), { timeout: 10_000, interval: 50 });
    await vi.waitFor(async () => expect(await b.page.locator('#jitter-error').innerText()).toMatch(/^warning: jitter 200000 us \(uniform\) reaches zero delay/), {
      timeout: 10_000,
      interval: 50,
    });
    await b.page.fill('#jitter-input', '0');
    await b.page.click('#jitter-apply');
    await vi.waitFor(async () => expect((await stats()).link).toMatchObject({ jitterUs: 0 }), { timeout: 10_000, interval: 50 });
    await vi.waitFor(async () => expect(await b.page.locator('#jitter-error').innerText()).toBe(''), { timeout: 10_000, interval: 50 });
  });

  it('the link\'s loss fields get controls of their own, through the same API', async () => {
    await vi.waitFor(async () => expect(await b.page.locator('#lossUp-input').count()).toBe(1), { timeout: 10_000, interval: 50 });
    await b.page.fill('#lossUp-input', 'lots');
    await b.page.click('#lossUp-apply');
    await vi.waitFor(async () => expect(await b.page.locator('#lossUp-error').innerText()).toMatch(/lossUp/), { timeout: 10_000, interval: 50 });
    expect((await stats()).link).toMatchObject({ lossUp: 0 });
    await b.page.fill('#lossUp-input', '2%');
    await b.page.click('#lossUp-apply');
    await vi.waitFor(async () => expect((await stats()).link).toMatchObject({ lossUp: 0.02, lossDown: 0 }), { timeout: 10_000, interval: 50 });
    expect(await b.page.locator('#lossUp-error').innerText()).toBe('');
    await b.page.fill('#lossUp-input', '0');
    await b.page.click('#lossUp-apply');
    await vi.waitFor(async () => expect((await stats()).link).toMatchObject({ lossUp: 0 }), { timeout: 10_000, interval: 50 });
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
    // Names the browser would drop from a URL path (a request to / before): removed all the same.
    for (const name of ['..', '.']) {
      proxy.addToxic({ type: 'latency', name, attributes: { latency: 1 } });
      await b.page.click(`button[data-toxic="${name}"]`);
      await vi.waitFor(() => expect(proxy.toxics()).toEqual([]), { timeout: 10_000, interval: 50 });
    }
    expect(await b.page.locator('#toxic-error').innerText()).toBe('');
    await vi.waitFor(async () => expect(await b.page.locator('#toxics-empty').isVisible()).toBe(true), { timeout: 10_000, interval: 100 });
  });

  it('a Remove held down while events come removes its toxic: its row is not made again under the press', async () => {
    proxy.addToxic({ type: 'latency', name: 'held', attributes: { latency: 1 } });
    const button = b.page.locator('button[data-toxic="held"]');
    const box = await vi.waitFor(async () => (await button.boundingBox())!, { timeout: 10_000, interval: 50 });
    // Each event sets the window's text: two of them come while the button is held.
    await b.page.evaluate("window.renders = 0; new MutationObserver(() => window.renders++).observe(document.getElementById('window'), { childList: true })");
    await b.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await b.page.mouse.down();
    await vi.waitFor(async () => expect(await b.page.evaluate('window.renders')).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 50 });
    await b.page.mouse.up();
    await vi.waitFor(() => expect(proxy.toxics()).toEqual([]), { timeout: 5_000, interval: 50 });
  });

  it('a page from another origin (same site, so the cookie goes along) changes nothing and reads nothing', async () => {
    const before = await stats();
    const evil = await startEvilSite(base);
    try {
      const page = await b.context.newPage();
      await page.goto(evil.url);
      await vi.waitFor(async () => expect(await page.title()).toBe('done'), { timeout: 20_000, interval: 100 });
      const outcomes = (await page.evaluate('window.outcomes')) as Record<string, string>;
      // Every attempt either failed in the browser or reached the proxy as an opaque, refused request.
      expect(outcomes).toEqual({
        putLink: 'failed',
        simplePostLink: 'opaque',
        simplePostToxic: 'opaque',
        simplePostReset: 'opaque',
        readStats: 'failed',
        events: 'failed',
        form: 'sent',
      });
      await page.close();
    } finally {
      await evil.close();
    }
    const after = await stats();
    expect(after.link).toEqual(before.link);
    expect(proxy.toxics()).toEqual([]);
    expect(after.totals.commands).toBeGreaterThanOrEqual(before.totals.commands);
  });

  it('with --client-zones, a node row per listener names its client zone; the node selector offers each node once', async () => {
    // A cluster proxy's event with 2 nodes in 3 client zones, served in place of this proxy's stream.
    const node = (port: number, clientZone: number) => ({
      ...{ id: `id${port}`, upstream: `127.0.0.1:${port}`, listen: `127.0.0.1:${40000 + 10 * clientZone + port - 7000}`, role: 'master', zone: 1 },
      ...{ link: 'same-az', linkSettings: proxy.link(), counters: newCounters(), connections: { active: 0, total: 0 }, clientZone },
    });
    const nodes = [1, 2, 3].flatMap((zone) => [node(7001, zone), node(7002, zone)]);
    const source = { stats: () => ({ ...proxy.stats(), cluster: { nodes } }), commandLatency: () => [] };
    const event = dashboardEvent(source, new StatsWindow(), 1e9, Date.now());
    const page = await b.context.newPage();
    try {
      await page.route('**/events', (route) => route.fulfill({ contentType: 'text/event-stream', body: `event: stats\ndata: ${JSON.stringify(event)}\n\n` }));
      await page.goto(`${base}/`);
      const rows = page.locator('#nodes-body tr');
      await vi.waitFor(async () => expect(await rows.count()).toBe(6), { timeout: 15_000, interval: 100 });
      expect(await page.locator('#nodes-client-zone').isVisible()).toBe(true);
      const shown = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent).join(' ')));
      expect(shown).toEqual(nodes.map((n) => `${n.upstream} ${n.listen} ${n.clientZone}`));
      expect(await page.locator('#node-select option').allInnerTexts()).toEqual(['every node', '127.0.0.1:7001', '127.0.0.1:7002']);
    } finally {
      await page.close();
    }
  });

  it('opens the stream again after an answer that is not one (a 503 while closing), which the browser gives up on', async () => {
    const page = await b.context.newPage();
    try {
      let asked = 0;
      await page.route('**/events', (route) => (asked++ === 0 ? route.fulfill({ status: 503, contentType: 'text/plain', body: 'closing\n' }) : route.continue()));
      await page.goto(`${base}/`);
      await vi.waitFor(async () => expect(await page.locator('#status').innerText()).toBe('live'), { timeout: 15_000, interval: 100 });
      expect(asked).toBe(2);
    } finally {
      await page.close();
    }
  });

  it('asked for nothing but its own origin', () => {
    expect(b.requests.filter((u) => !u.startsWith(`${base}/`))).toEqual([]);
  });

  it('closing the proxy ends the open stream, and the page says so', async () => {
    expect((await stats()).connections).toBeDefined();
    await proxy.close();
    await vi.waitFor(async () => expect(await b.page.locator('#status').innerText()).toMatch(/disconnected/), { timeout: 15_000, interval: 100 });
    // The last figures stay, greyed: not to be read as the traffic now.
    expect(await b.page.locator('main').evaluate((m) => Number((globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string } }).getComputedStyle(m).opacity))).toBeLessThan(1);
  });
});

describe('what the page says of counts it does not have', () => {
  it('--no-tap: the traffic figures say the counts are off, not 0/s, while redis-cli drives traffic', async () => {
    const bare = await startProxy({ upstream: redis.address, control: '127.0.0.1:0', tap: false, compensationUs: { up: 0, down: 0 }, log: () => {} });
    const page = await b.context.newPage();
    try {
      await page.goto(`http://localhost:${bare.controlAddress!.split(':').pop()}/`);
      await run('redis-cli', ['-h', bare.host!, '-p', String(bare.port), '-r', '20', 'PING'], { timeout: 30_000 });
      const shown = page.locator('[data-figure="commands"]');
      await vi.waitFor(async () => expect(await shown.innerText()).toBe('off (no tap)'), { timeout: 15_000, interval: 100 });
      expect(await page.locator('[data-figure="bytesUp"]').innerText()).toBe('off (no tap)');
      expect(await page.locator('#commands-empty').innerText()).toMatch(/not counted/);
    } finally {
      await page.close();
      await bare.close();
    }
  });

  it("redis-rtt server: a disabled proxy's page says it is disabled, greyed, and live again once it is enabled", async () => {
    const server = await startToxiproxyServer({ api: '127.0.0.1:0', log: () => undefined, seed: 1, config: [{ name: 'p', listen: '127.0.0.1:0', upstream: redis.address }] });
    const page = await b.context.newPage();
    const status = page.locator('#status');
    try {
      await page.goto(`http://${server.api}/ui?proxy=p`);
      await vi.waitFor(async () => expect(await status.innerText()).toBe('live'), { timeout: 15_000, interval: 100 });
      expect((await controlRequest(server.api, 'POST', '/proxies/p', { body: '{"enabled":false}' })).status).toBe(200);
      await vi.waitFor(async () => expect(await status.innerText()).toMatch(/^disabled/), { timeout: 15_000, interval: 100 });
      expect(await page.locator('body').getAttribute('class')).toContain('stale');
      expect((await controlRequest(server.api, 'POST', '/proxies/p', { body: '{"enabled":true}' })).status).toBe(200);
      await vi.waitFor(async () => expect(await status.innerText()).toBe('live'), { timeout: 15_000, interval: 100 });
      expect(await page.locator('body').getAttribute('class')).not.toContain('stale');
    } finally {
      await page.close();
      await server.close();
    }
  });
});

describe("redis-rtt server's page for a proxy named .", () => {
  it('shows its toxics read only: no form and no Remove button, whose request would reach /proxies/toxics', async () => {
    const server = await startToxiproxyServer({
      api: '127.0.0.1:0',
      log: () => undefined,
      seed: 1,
      config: [
        { name: '.', listen: '127.0.0.1:0', upstream: redis.address },
        { name: 'toxics', listen: '127.0.0.1:0', upstream: redis.address },
      ],
    });
    const page = await b.context.newPage();
    try {
      server.proxies.get('.').addToxic({ type: 'latency', name: 'dot_latency', attributes: { latency: 1 } });
      await page.goto(`http://${server.api}/ui?proxy=.`);
      await vi.waitFor(async () => expect(await page.locator('#toxics-body tr', { hasText: 'dot_latency' }).count()).toBe(1), { timeout: 15_000, interval: 100 });
      expect(await page.locator('#toxics-body button').count()).toBe(0);
      expect(await page.locator('#toxic-form').isVisible()).toBe(false);
      expect(server.proxies.list().map((p) => p.name).sort()).toEqual(['.', 'toxics']);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
