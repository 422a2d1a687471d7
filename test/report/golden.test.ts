import { describe, expect, it } from 'vitest';
import { renderCalibrateTable, renderCsv, renderHtml, renderMarkdown, renderTable } from '../../src/report/index.js';
import { buildBenchReport, buildCalibrateReport } from './fixture-builder.js';
import { benchFixture, calibrateFixture, expectGolden } from './helpers.js';

describe('fixtures', () => {
  it('the committed JSON fixtures match the builder that made them', () => {
    expect(benchFixture()).toEqual(buildBenchReport());
    expect(calibrateFixture()).toEqual(buildCalibrateReport());
  });
});

describe('bench report goldens', () => {
  const report = benchFixture();
  it('table', () => expectGolden('bench-table.txt', renderTable(report)));
  it('table with colour', () => {
    const colored = renderTable(report, { color: true });
    expectGolden('bench-table-color.txt', colored);
    // Colour must not move a single column.
    // eslint-disable-next-line no-control-regex -- ANSI colour escapes
    expect(colored.replace(/\x1b\[[0-9;]*m/g, '')).toBe(renderTable(report));
  });
  it('csv', () => expectGolden('bench.csv', renderCsv(report)));
  it('markdown', () => expectGolden('bench.md', renderMarkdown(report)));
  it('html', () => expectGolden('bench.html', renderHtml(report)));
});

describe('calibrate report goldens', () => {
  const report = calibrateFixture();
  it('table', () => expectGolden('calibrate-table.txt', renderCalibrateTable(report)));
  it('csv', () => expectGolden('calibrate.csv', renderCsv(report)));
  it('markdown', () => expectGolden('calibrate.md', renderMarkdown(report)));
  it('html', () => expectGolden('calibrate.html', renderHtml(report)));
});
