/** The open-loop report as one self-contained HTML page (pure), with the shell of the bench report. */
import type { OpenLoopReport } from '../../workload/open-loop/types.js';
import { chartsSection, environmentSection, page } from '../html.js';
import { esc } from '../../svg/escape.js';
import { notesWithSetup } from '../connection-setup.js';
import { backlogCharts, rateCurves, spectrumCharts } from './charts.js';
import { batchRows, latencyRows, loadRows, rowNotes } from './table.js';

function tableHtml(title: string, t: { head: string[]; rows: string[][] } | null): string {
  if (!t) return '';
  const head = `<tr>${t.head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const rows = t.rows.map((r) => `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row">${esc(c)}</th>` : `<td>${esc(c)}</td>`)).join('')}</tr>`);
  return `<section>\n<h2>${esc(title)}</h2>\n<table>\n<thead>${head}</thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>\n</section>`;
}

export function renderOpenLoopHtml(report: OpenLoopReport, title = 'redis-rtt open-loop report'): string {
  const notes = [...notesWithSetup(report), ...rowNotes(report.results)];
  const sections = [
    chartsSection([...rateCurves(report), ...spectrumCharts(report), ...backlogCharts(report)]),
    tableHtml('Latency per command: corrected | uncorrected', latencyRows(report.results)),
    tableHtml('Load', loadRows(report.results)),
    tableHtml('Batching windows', batchRows(report.results)),
    notes.length > 0 ? `<section>\n<h2>Notes</h2>\n<ul>\n${notes.map((n) => `<li>${esc(n)}</li>`).join('\n')}\n</ul>\n</section>` : '',
    environmentSection(report.environment),
  ];
  const sub = `${report.results.length} runs; started ${report.environment.startedAt}; redis-rtt ${report.environment.redisRtt}, redis ${report.environment.redis}, node ${report.environment.node}`;
  return page(title, sub, sections);
}
