/**
 * Opens generated reports in real headless Chromium: every chart draws with the expected number
 * of series, the page makes no request but its own file, and the screenshot in docs/demo.md is written by
 * the same code path (test/report/screenshot.ts). Chromium missing is a failure, not a skip: CI
 * installs it.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchCharts, calibrateCharts, renderHtml } from '../../src/report/index.js';
import { benchFixture, calibrateFixture } from './helpers.js';
import { openReport, screenshotHtml } from './screenshot.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, html: string): string {
  const path = join(dir, name);
  writeFileSync(path, html);
  return path;
}

/** Series per chart in the fixtures, counted by hand from fixture-builder.ts. */
const BENCH_SERIES: Record<string, number> = {
  'time-vs-batch': 4, // direct, local, cross-az + cross-az model (no model line where RTT is 0)
  speedup: 3,
  'round-trips': 3, // local, cross-az (direct has no proxy) + the ceil(N/B) ticks
  bytes: 2, // up, down
  'percentiles direct': 9,
  'percentiles local': 9,
  'percentiles cross-az': 8, // mget 1000 failed there
};
const CALIBRATE_SERIES: Record<string, number> = { 'calibrate-added-rtt': 3, 'calibrate-percentiles': 6 };

async function checkPage(htmlPath: string, expected: Record<string, number>): Promise<void> {
  const report = await openReport(htmlPath);
  try {
    const charts = await report.page.$$eval('svg[data-chart]', (svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        return { name: svg.getAttribute('data-chart') ?? '', width: box.width, height: box.height, series: svg.querySelectorAll('[data-series]').length };
      }),
    );
    expect(charts.map((c) => c.name)).toEqual(Object.keys(expected));
    for (const c of charts) {
      expect(c.width, `${c.name} width`).toBeGreaterThan(100);
      expect(c.height, `${c.name} height`).toBeGreaterThan(100);
      expect(c.series, `${c.name} series`).toBe(expected[c.name]);
    }
    expect(await report.page.locator('script').count()).toBe(0);
    expect(report.requests).toEqual([report.url]);
  } finally {
    await report.close();
  }
}

describe('HTML report in Chromium', () => {
  it('bench: charts render with their series, and nothing leaves the page', async () => {
    await checkPage(write('bench.html', renderHtml(benchFixture())), BENCH_SERIES);
  });

  it('calibrate: charts render with their series, and nothing leaves the page', async () => {
    await checkPage(write('calibrate.html', renderHtml(calibrateFixture())), CALIBRATE_SERIES);
  });

  it('every chart is well-formed XML on its own (usable outside the page)', async () => {
    const svgs = [...benchCharts(benchFixture()), ...calibrateCharts(calibrateFixture())].map((c) => c.svg);
    const report = await openReport(write('blank.html', '<!doctype html><title>blank</title>'));
    try {
      const errors = await report.page.evaluate((list) => {
        // Runs in the page; the test's tsconfig has no DOM lib, so the parser is typed by hand.
        type Parsed = { querySelector(sel: string): { textContent: string | null } | null };
        const Parser = (globalThis as unknown as { DOMParser: new () => { parseFromString(t: string, type: string): Parsed } }).DOMParser;
        return list.map((text) => {
          const doc = new Parser().parseFromString(text, 'image/svg+xml');
          return doc.querySelector('parsererror')?.textContent ?? null;
        });
      }, svgs);
      expect(errors).toEqual(svgs.map(() => null));
    } finally {
      await report.close();
    }
  });

  it('takes a full-page screenshot (the code path behind the picture in docs/demo.md)', async () => {
    // docs/demo.md's picture comes from a real demo run through the same screenshotHtml(); here a
    // temp file keeps test runs from rewriting the committed one.
    const keep = process.env.REPORT_SCREENSHOT_DIR;
    const dir = keep ?? mkdtempSync(join(tmpdir(), 'redis-rtt-shot-'));
    try {
      const png = join(dir, 'report.png');
      await screenshotHtml(write('shot.html', renderHtml(benchFixture())), png);
      // REPORT_SCREENSHOT_DIR=dir also shoots the calibration page there, for a look by eye.
      if (keep) await screenshotHtml(write('cal.html', renderHtml(calibrateFixture())), join(keep, 'calibrate.png'));
      expect(statSync(png).size).toBeGreaterThan(10_000);
    } finally {
      if (!keep) rmSync(dir, { recursive: true, force: true });
    }
  });
});
