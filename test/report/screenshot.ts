/**
 * Opens a generated report in headless Chromium and screenshots it: the picture in docs/demo.md and the
 * browser test go through this same code. playwright-core is a dev dependency, so it is loaded
 * only when called, and this module is not re-exported from the report index.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';

/** Where Debian/Ubuntu's `chromium` package puts the browser (CI installs it there). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless, no sandbox (containers run as root), and nothing that talks to the network by itself. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface ReportPage {
  page: Page;
  /** URL of every request the page made, in order (a self-contained report makes only its own). */
  requests: string[];
  url: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** @default 1440 */
  width?: number;
  /** @default 900 */
  height?: number;
}

/**
 * Launches Chromium and loads the file. `launch` gives every browser a fresh, empty temporary
 * profile (user-data-dir) and removes it on close, so no state carries between runs.
 */
export async function openReport(htmlPath: string, opts: OpenOptions = {}): Promise<ReportPage> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} not found: install it (apt-get install -y chromium) to render reports`);
  }
  const { chromium } = await import('playwright-core');
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  try {
    const context = await browser.newContext({ viewport: { width: opts.width ?? 1440, height: opts.height ?? 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (req) => requests.push(req.url()));
    const url = pathToFileURL(resolve(htmlPath)).href;
    await page.goto(url, { waitUntil: 'load' });
    return { page, requests, url, close: () => browser.close() };
  } catch (err) {
    await browser.close();
    throw err;
  }
}

/** Full-page PNG of a report file; creates the PNG's directory. */
export async function screenshotHtml(htmlPath: string, pngPath: string): Promise<void> {
  const report = await openReport(htmlPath);
  try {
    await mkdir(dirname(resolve(pngPath)), { recursive: true });
    await report.page.screenshot({ path: pngPath, fullPage: true });
  } finally {
    await report.close();
  }
}
