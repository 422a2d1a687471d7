/** Headless Chromium on a URL, with the launch options of the report's browser test. */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../report/screenshot.js';

export interface OpenBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Every URL the first page asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function openBrowser(): Promise<OpenBrowser> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  const context = await browser.newContext({ viewport: { width: 1360, height: 1000 } });
  const requests: string[] = [];
  const page = await context.newPage();
  page.on('request', (r) => requests.push(r.url()));
  return { browser, context, page, requests, close: () => browser.close() };
}
