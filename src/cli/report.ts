import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { checkOutputs } from './json-out.js';
import {
  parseReport,
  renderCalibrateTable,
  renderCsv,
  renderHtml,
  renderMarkdown,
  renderTable,
} from '../report/index.js';
import { isTraceText } from '../record/trace-format.js';
import type { BenchReport, CalibrateReport } from '../results/types.js';
import { colorFor } from '../text-grid.js';

const FORMATS = ['table', 'csv', 'markdown'] as const;
type Format = (typeof FORMATS)[number];

interface ReportFlags {
  html?: string;
  format?: string;
  title?: string;
}

/** `redis-rtt report RESULT.json [--html FILE] [--format table|csv|markdown]`. */
export function registerReport(program: Command): void {
  program
    .command('report')
    .description('Re-render a saved bench or calibrate JSON as a table, CSV, markdown or one self-contained HTML file')
    .argument('<RESULT>', 'JSON written by a closed-loop `redis-rtt bench --json` (not --rate/--clients) or `redis-rtt calibrate --json`')
    .option('--html <FILE>', 'write a self-contained HTML report (inline SVG charts, no scripts, opens offline)')
    .option('--format <FORMAT>', `text on stdout: ${FORMATS.join(', ')} (default: table; with --html, none unless given)`)
    .option('--title <TEXT>', 'HTML page title (with --html)')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  redis-rtt report redis-rtt-report.json                       # the table again\n' +
        '  redis-rtt report redis-rtt-report.json --format csv > r.csv\n' +
        '  redis-rtt report calibrate.json --html calibrate.html --title "laptop, Node 24"',
    )
    .action((file: string, flags: ReportFlags) => {
      runReport(file, flags);
    });
}

export function runReport(file: string, flags: ReportFlags): void {
  const format = parseFormat(flags.format);
  // The title is the HTML page's: without --html nothing would show it.
  if (flags.title !== undefined && flags.html === undefined) throw new ConfigError('--title', flags.title, 'to be given with --html (it titles the page)');
  // As analyze and bench: a missing folder is made, once there is a page to write into it.
  checkOutputs({ '--html': flags.html }, {}, [file], { makeFolders: false });
  const report = loadReport(file);
  if (flags.html !== undefined) {
    try {
      mkdirSync(dirname(flags.html), { recursive: true });
      writeFileSync(flags.html, renderHtml(report, flags.title === undefined ? {} : { title: flags.title }));
    } catch (err) {
      throw new ConfigError('--html', flags.html, `a writable file path (${errMessage(err)})`);
    }
    process.stderr.write(`redis-rtt: wrote ${flags.html}\n`);
  }
  // With --html alone the file is the product; text goes to stdout only when asked for or by default.
  if (format === undefined && flags.html !== undefined) return;
  process.stdout.write(renderText(report, format ?? 'table', file));
}

function renderText(report: BenchReport | CalibrateReport, format: Format, file: string): string {
  if (format === 'csv') return renderCsv(report);
  if (format === 'markdown') return renderMarkdown(report);
  const color = colorFor(process.stdout);
  return report.kind === 'calibrate' ? renderCalibrateTable(report, { color, savedAs: file }) : renderTable(report, { color });
}

function parseFormat(value: string | undefined): Format | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'md') return 'markdown';
  if ((FORMATS as readonly string[]).includes(v)) return v as Format;
  throw new ConfigError('--format', value, FORMATS.join(', '));
}

function loadReport(file: string): BenchReport | CalibrateReport {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : errMessage(err);
    throw new ConfigError('RESULT', file, `a readable JSON file from bench or calibrate (${why})`);
  }
  // A trace is JSON lines: it was refused as "not JSON: Unexpected non-whitespace character after JSON at position 263".
  if (isTraceText(text)) throw new ConfigError('RESULT', file, 'a bench or calibrate JSON, not a trace: read a trace with `redis-rtt analyze FILE` (--html FILE for a page)');
  return parseReport(text, file, 'RESULT');
}

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
