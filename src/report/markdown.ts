/**
 * Markdown for an issue or a PR: the reading, one table row per result with every scalar field
 * (histograms left out: they are opaque base64, kept in the JSON and CSV), notes, environment
 * and method.
 */
import type { BenchReport, CalibrateReport } from '../results/types.js';
import { notesWithSetup } from './connection-setup.js';
import { environmentLine, methodLines } from './context.js';
import { idleCpuText } from './calibrate-table.js';
import { fieldTable } from './fields.js';
import { checkReport } from './load.js';
import { renderReading } from './reading.js';

export function renderMarkdown(report: BenchReport | CalibrateReport): string {
  checkReport(report, 'renderMarkdown', ['bench', 'calibrate']);
  const out: string[] = [];
  if (report.kind === 'calibrate') {
    out.push('# redis-rtt calibrate', '', mdText(report.verdict), '');
    out.push(...mdTable(report), '');
    out.push(`Idle proxy CPU: ${mdText(idleCpuText(report))}.`, '');
  } else {
    out.push('# redis-rtt bench', '');
    const reading = renderReading(report);
    if (reading.length > 0) out.push(...reading.map((l) => `- ${mdText(l)}`), '');
    out.push(...mdTable(report), '');
    const notes = notesWithSetup(report);
    if (notes.length > 0) {
      out.push('Notes:', '', ...notes.map((n, i) => `${i + 1}. ${mdText(n)}`), '');
    }
    out.push('Method:', '', ...methodLines(report.method).map((l) => `- ${mdText(l)}`), '');
  }
  out.push(`Environment: ${mdText(environmentLine(report.environment))}`);
  return `${out.join('\n')}\n`;
}

function mdTable(report: BenchReport | CalibrateReport): string[] {
  const table = fieldTable(report, { bulky: false });
  const numeric = table.header.map((_, c) => table.rows.some((r) => typeof r[c] === 'number'));
  const row = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [
    row(table.header.map(mdCell)),
    row(numeric.map((n) => (n ? '---:' : '---'))),
    ...table.texts.map((r) => row(r.map(mdCell))),
  ];
}

/**
 * Inline text: `&` and `<` escaped, which is enough to keep a link named <script> as text; `>`
 * stays readable ("85 ms -> 5 ms") since it cannot open a tag mid-line.
 */
export function mdText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** A table cell additionally cannot hold a pipe or a line break. */
export function mdCell(s: string): string {
  return mdText(s).replace(/\|/g, '\\|').replace(/\r?\n|\r/g, ' ');
}
