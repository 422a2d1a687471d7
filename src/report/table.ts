/**
 * The terminal comparison table: one block per link (nearest first), footnotes, environment and
 * method underneath. Pure: report in, string out.
 */
import { z } from 'zod';
import type { BenchReport } from '../results/types.js';
import { keyPath, parseWith } from '../validation/schema.js';
import { environmentLine, methodLines } from './context.js';
import { renderReading } from './reading.js';
import { buildTableModel } from './table-model.js';
import { checkReport } from './load.js';
import { RULE, oneLine, paint, renderGrid, type GridRow } from '../text-grid.js';

export { renderReading } from './reading.js';

export interface TableOptions {
  /** ANSI colour (bold header, red FAILED rows, dim rules and footer). @default false */
  color?: boolean;
}

/** A key it does not take (`colour`) rendered without a word, the setting left out. */
const TABLE_OPTIONS = z.strictObject({ color: z.boolean({ error: 'true or false' }).optional() } satisfies Record<keyof TableOptions, z.ZodType>, {
  error: (issue) => (issue.code === 'unrecognized_keys' ? "a key of renderTable's options: color" : "an object of renderTable's options"),
});

export function renderTable(report: BenchReport, opts: TableOptions = {}): string {
  checkReport(report, 'renderTable', ['bench']);
  parseWith(TABLE_OPTIONS, opts, keyPath('options'));
  const color = opts.color ?? false;
  const model = buildTableModel(report);
  const modeCol = model.columns.findIndex((c) => c.key === 'mode');
  const rows: GridRow[] = [{ cells: model.columns.map((c) => c.title), tone: 'bold' }];
  for (const block of model.blocks) {
    rows.push(RULE);
    block.rows.forEach((row, i) => {
      const cells = [...row.cells];
      if (row.refs.length > 0 && modeCol >= 0) cells[modeCol] = `${cells[modeCol]} ${row.refs.map((n) => `[${n}]`).join('')}`;
      const cellTones = cells.map((_, c) => (c === 0 && i === 0 ? ('bold' as const) : undefined));
      rows.push({ cells, tone: row.failed ? 'fail' : 'plain', cellTones });
    });
  }
  if (model.blocks.length === 0) rows.push(RULE, { cells: ['(no results)'] });
  const lines = renderGrid(
    rows,
    model.columns.map((c) => c.align),
    { color },
  );

  const reading = renderReading(report);
  if (reading.length > 0) lines.push('', ...reading);
  if (model.footnotes.length > 0) {
    lines.push('', paint('notes:', 'bold', color));
    // A note's own line breaks are kept, indented under its number; other control bytes are not.
    model.footnotes.forEach((note, i) => {
      const mark = `  [${i + 1}] `;
      note.split(/\r?\n/).forEach((part, j) => lines.push(`${j === 0 ? mark : ' '.repeat(mark.length)}${oneLine(part)}`));
    });
  }
  lines.push('', paint(`environment: ${environmentLine(report.environment)}`, 'dim', color));
  for (const [i, line] of methodLines(report.method).entries()) {
    lines.push(paint(`${i === 0 ? 'method:' : '       '} ${line}`, 'dim', color));
  }
  return `${lines.join('\n')}\n`;
}
