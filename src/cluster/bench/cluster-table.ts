import { fmtUsLabel as fmt, interruptedWords } from '../../format.js';
import { renderGrid, RULE, type GridRow } from '../../text-grid.js';
import type { ClusterBenchReport, ClusterBenchRow } from './cluster-bench.js';

/**
 * What a row's `reads` (ioredis scaleReads' words, kept in the JSON) says to the user, in the table
 * and the progress lines: primary and replica, as everywhere else the tool speaks.
 */
export const READS: Record<ClusterBenchRow['reads'], string> = { master: 'primaries', slave: 'replicas', 'zone-replica': 'same-zone replica' };


/**
 * The cluster bench as a text table: one row per configuration and shape, round trips per node. An
 * interrupted run adds a samples column ("2 of 5"): its rows' medians are over fewer samples than
 * asked for, and not all the same number.
 */
export function renderClusterTable(report: ClusterBenchReport, opts: { color?: boolean } = {}): string {
  const partial = report.interrupted === true;
  const sampleHead = partial ? ['samples'] : [];
  const head: GridRow = { cells: ['config', 'shape', 'reads', 'us/op (min-max)', ...sampleHead, 'round trips', 'per node: role zone rtt -> round trips'], tone: 'bold' };
  const rows: GridRow[] = [head, RULE];
  let last = '';
  for (const r of report.rows) {
    if (last !== '' && r.config !== last) rows.push(RULE);
    last = r.config;
    const perNode = r.perNode
      .filter((x) => x.roundTrips > 0)
      .map((x) => `${x.role === 'master' ? 'P' : 'R'}${x.zone ?? ''}@${fmt(x.rttUs)}:${x.roundTrips}`)
      .join(' ');
    rows.push({
      cells: [
        r.config,
        r.shape,
        READS[r.reads],
        `${fmt(r.usPerOp)} (${fmt(r.usPerOpMin)}-${fmt(r.usPerOpMax)})`,
        ...(partial ? [`${r.samples} of ${report.repeat}`] : []),
        String(r.roundTrips),
        perNode,
      ],
    });
  }
  const lines = renderGrid(rows, ['left', 'left', 'left', 'right', ...(partial ? (['right'] as const) : []), 'right', 'left'], opts);
  // So a partial table is not read as the whole run; it names the signal (it said Ctrl-C after a SIGTERM too).
  if (report.interrupted) lines.push(`${interruptedWords(report.stoppedBy)}: only the samples that finished are reported`);
  return lines.join('\n') + '\n';
}
