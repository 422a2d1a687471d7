/**
 * The dashboard pages in real headless Chromium log nothing to the console: no script error, no
 * failed request (Chromium asks a page without an icon for /favicon.ico, and the endpoint's 404
 * was an error line in the console each time a page opened). The proxy's page at /, and redis-rtt
 * server's pages at /ui (a proxy's page, and the list of proxies).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startProxy } from '../../src/cluster/start-proxy.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';
import { openBrowser, type OpenBrowser } from './browser.js';

let redis: PrivateRedis;
let proxy: RedisRttProxy;
let server: ToxiproxyServer;
let b: OpenBrowser;

beforeAll(async () => {
  redis = await startPrivateRedis();
  proxy = await startProxy({ upstream: redis.address, listen: '127.0.0.1:0', control: '127.0.0.1:0', compensationUs: { up: 0, down: 0 }, log: () => {} });
  server = await startToxiproxyServer({
    api: '127.0.0.1:0',
    log: () => undefined,
    seed: 1,
    config: [
      { name: 'one', listen: '127.0.0.1:0', upstream: redis.address },
      { name: 'two', listen: '127.0.0.1:0', upstream: redis.address },
    ],
  });
  b = await openBrowser();
}, 60_000);

afterAll(async () => {
  await b?.close();
  await server?.close();
  await proxy?.close();
  await redis?.stop();
});

type Page = OpenBrowser['page'];

/** Opens url in a context of its own (Chromium asks an origin for its icon once per context) and returns what the console said until `settled` held. */
async function consoleOf(url: string, settled: (page: Page) => Promise<void>): Promise<string[]> {
  const context = await b.browser.newContext();
  const page = await context.newPage();
  const lines: string[] = [];
  page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
  try {
    await page.goto(url, { waitUntil: 'load' });
    await settled(page);
    return lines;
  } finally {
    await context.close();
  }
}

/**
 * Live, and a second of events later: Chromium asks for the icon within milliseconds of the load
 * event, so a 404's console line would be there by then.
 */
const liveForASecond = async (page: Page): Promise<void> => {
  await vi.waitFor(async () => expect(await page.locator('#status').innerText()).toBe('live'), { timeout: 15_000, interval: 100 });
  await vi.waitFor(async () => expect(Number.parseFloat((await page.locator('#window').innerText()).replace(/^last /, ''))).toBeGreaterThanOrEqual(1), {
    timeout: 15_000,
    interval: 100,
  });
};

/** The page names an icon that costs no request (a static page has no event stream to wait on). */
const iconNeedsNoRequest = async (page: Page): Promise<void> => {
  expect(await page.locator('li').allInnerTexts()).toEqual(['one', 'two']);
  expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/^data:/);
};

describe('the dashboard pages log nothing to the console', () => {
  it("the proxy's page at /", async () => {
    const base = `http://${proxy.controlAddress!}`;
    expect(await consoleOf(`${base}/`, liveForASecond)).toEqual([]);
  });

  it("redis-rtt server's page of a proxy at /ui?proxy=NAME", async () => {
    expect(await consoleOf(`http://${server.api}/ui?proxy=one`, liveForASecond)).toEqual([]);
  });

  it("redis-rtt server's list of proxies at /ui", async () => {
    expect(await consoleOf(`http://${server.api}/ui`, iconNeedsNoRequest)).toEqual([]);
  });
});
