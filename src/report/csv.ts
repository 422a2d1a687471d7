/**
 * CSV: one row per result with every scalar field, RFC 4180 (CRLF line ends, fields holding a
 * comma, quote or line break are quoted and their quotes doubled).
 */
import type { BenchReport, CalibrateReport } from '../results/types.js';
import { fieldTable, scalarText } from './fields.js';

export function renderCsv(report: BenchReport | CalibrateReport): string {
  const table = fieldTable(report);
  const lines = [table.header, ...table.rows.map((row) => row.map(scalarText))];
  return lines.map((cells) => cells.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
