/**
 * Report renderers: pure functions from a saved result (BenchReport / CalibrateReport) to text.
 * Screenshots (playwright-core, a dev dependency) live in test/report/screenshot.ts, beside the browser test.
 */
export { renderTable, renderReading, type TableOptions } from './table.js';
export { renderCsv } from './csv.js';
export { renderMarkdown } from './markdown.js';
export { renderCalibrateTable, type CalibrateTableOptions } from './calibrate-table.js';
export { renderHtml, type HtmlOptions } from './html.js';
export { benchCharts, calibrateCharts } from './charts/index.js';
export { parseReport } from './load.js';
// The SVG building blocks record/analyze's HTML shares.
export { renderCategoryChart } from '../svg/category-chart.js';
export { esc } from '../svg/escape.js';
export { seriesStyle } from '../svg/style.js';
