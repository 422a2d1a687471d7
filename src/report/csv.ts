/**
 * CSV: one row per result with every scalar field, bench figures rounded as the table rounds them
 * (fields.ts; the JSON keeps every digit), RFC 4180 (CRLF line ends, fields holding a comma, quote
 * or line break are quoted and their quotes doubled).
 */
import type { BenchReport, CalibrateReport } from '../results/types.js';
import { fieldTable } from './fields.js';
import { checkReport } from './load.js';

export function renderCsv(report: BenchReport | CalibrateReport): string {
  checkReport(report, 'renderCsv', ['bench', 'calibrate']);
  const table = fieldTable(report);
  const lines = [table.header, ...table.texts];
  return lines.map((cells) => cells.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
