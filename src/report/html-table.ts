/**
 * The comparison and calibration tables as HTML, from the same models as the terminal tables.
 */
import type { CalibrateReport } from '../results/types.js';
import { CALIBRATE_COLUMNS } from './calibrate-table.js';
import { esc } from '../svg/escape.js';
import type { TableModel } from './table-model.js';

export function benchTableHtml(model: TableModel): string {
  const cls = (align: 'left' | 'right'): string => (align === 'left' ? ' class="l"' : '');
  const linkCol = model.columns.findIndex((c) => c.key === 'link');
  const modeCol = model.columns.findIndex((c) => c.key === 'mode');
  const head = `<thead><tr>${model.columns.map((c) => `<th${cls(c.align)} scope="col">${esc(c.title)}</th>`).join('')}</tr></thead>`;
  const bodies = model.blocks.map((block) => {
    const rows = block.rows.map((row, rowIndex) => {
      const cells = row.cells.map((text, c) => {
        const col = model.columns[c]!;
        let inner = esc(text);
        if (c === modeCol && row.refs.length > 0) {
          inner += row.refs.map((n) => `<sup><a href="#note-${n}">${n}</a></sup>`).join('');
        }
        // Below the link's name, its second row says what the link adds: set in a lighter weight.
        if (c === linkCol) return `<td class="l link">${rowIndex === 0 ? inner : `<span class="rtt">${inner}</span>`}</td>`;
        // The breakdown is padded to line up; pre keeps those spaces in HTML too.
        if (col.key === 'where') return `<td class="where">${inner}</td>`;
        return `<td${cls(col.align)}>${inner}</td>`;
      });
      return `<tr${row.failed ? ' class="failed"' : ''}>${cells.join('')}</tr>`;
    });
    return `<tbody data-link="${esc(block.link)}">\n${rows.join('\n')}\n</tbody>`;
  });
  if (bodies.length === 0) bodies.push(`<tbody><tr><td class="l" colspan="${model.columns.length}">(no results)</td></tr></tbody>`);
  return `<div class="table-wrap"><table class="results">\n${head}\n${bodies.join('\n')}\n</table></div>`;
}

export function footnotesHtml(footnotes: string[]): string {
  if (footnotes.length === 0) return '';
  const items = footnotes.map((n, i) => `<li id="note-${i + 1}">${esc(n)}</li>`);
  return `<ol class="notes">\n${items.join('\n')}\n</ol>`;
}

export function calibrateTableHtml(report: CalibrateReport): string {
  const cls = (align: 'left' | 'right'): string => (align === 'left' ? ' class="l"' : '');
  const head = `<thead><tr>${CALIBRATE_COLUMNS.map((c) => `<th${cls(c.align)} scope="col">${esc(c.title)}</th>`).join('')}</tr></thead>`;
  const rows = report.rows.map((r) => `<tr>${CALIBRATE_COLUMNS.map((c) => `<td${cls(c.align)}>${esc(c.cell(r))}</td>`).join('')}</tr>`);
  if (rows.length === 0) rows.push(`<tr><td class="l" colspan="${CALIBRATE_COLUMNS.length}">(no rows)</td></tr>`);
  return `<div class="table-wrap"><table class="calibration">\n${head}\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table></div>`;
}
