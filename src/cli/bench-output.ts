import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jsonToStdout, writeOutputFile } from './json-out.js';
import { renderCsv, renderHtml, renderMarkdown, renderTable } from '../report/index.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import type { BenchReport, BenchResult } from '../results/types.js';
import { colorFor } from '../text-grid.js';

export interface BenchOutputFlags {
  json?: string;
  csv?: string;
  markdown?: string;
  html?: string;
  hgrmDir?: string;
  format?: 'table' | 'json';
}

/**
 * What a bench run prints and writes. The table goes to stderr with the progress (stdout stays
 * free for a pipe); `--format table` puts it on stdout, `--format json` puts the JSON report on
 * stdout and leaves the table on stderr (as `--json -` does). Files where asked.
 */
export async function emitBenchReport(report: BenchReport, flags: BenchOutputFlags): Promise<string[]> {
  const written: string[] = [];
  if (flags.format === 'table') {
    // Exactly what `report FILE --format table` prints from the saved JSON (no blank line after it).
    process.stdout.write(renderTable(report, { color: colorFor(process.stdout) }));
  } else {
    process.stderr.write(renderTable(report, { color: colorFor(process.stderr) }) + '\n');
    if (flags.format === 'json') process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  }
  if (flags.json !== undefined && jsonToStdout(flags.json)) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  const files: [string | undefined, () => string][] = [
    [jsonToStdout(flags.json) ? undefined : flags.json, () => JSON.stringify(report, null, 2) + '\n'],
    [flags.csv, () => renderCsv(report)],
    [flags.markdown, () => renderMarkdown(report)],
    [flags.html, () => renderHtml(report)],
  ];
  for (const [file, render] of files) {
    if (file === undefined) continue;
    await writeOutputFile(file, render());
    written.push(file);
  }
  if (flags.hgrmDir !== undefined) written.push(...(await writeHgrms(report, flags.hgrmDir)));
  return written;
}

/** One HdrHistogram percentile file per configuration (latency per wait, microseconds). */
export async function writeHgrms(report: BenchReport, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const r of report.results) {
    if (!r.histogram || r.repeat === 0) continue;
    const file = join(dir, hgrmName(r));
    await writeFile(file, LatencyHistogram.decode(r.histogram).percentileDistribution());
    written.push(file);
  }
  return written;
}

export function hgrmName(r: BenchResult): string {
  const safe = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${safe(r.link)}-${r.workload}-${r.mode}-b${r.batch}-n${r.n}.hgrm`;
}
