/**
 * `analyze --html FILE`: one self-contained page (inline CSS, inline SVG, no scripts, no fetches) with the
 * session summary, the projected wall time per RTT as a bar chart, and the tables of the text report.
 */
import { esc, renderCategoryChart, seriesStyle } from '../report/index.js';
import { fmtMsTotal, fmtUsSetting } from '../format.js';
import type { Analysis } from './analyze.js';
import { chainedAlternativeNote, chainLine, DEPTH_HEADINGS, timeSplit, depthCells, insteadCell, isLossy, plural, LOSS_HEADINGS, LOSS_NOTE, lossColumnCells, nodeCells, recordedRttLabel, rttLabel, setupLine } from './render.js';
import { redirectLine } from './nodes.js';
import { OPPORTUNITY_CAVEAT } from './opportunities.js';
import { hasSetup } from './setup.js';

const CSS = `body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}
th,td{padding:.25rem .6rem;border-bottom:1px solid #e5e5e5;text-align:right}th{background:#f6f6f6}
td.l,th.l{text-align:left}.note{color:#666;font-size:.9rem}.warn{color:#a40}`;

export function renderHtml(a: Analysis, file?: string): string {
  const t = a.totals;
  const parts: string[] = [];
  parts.push(`<h1>redis-rtt analyze${file ? `: ${esc(file)}` : ''}</h1>`);
  parts.push(
    `<p>${plural(t.connections, 'connection')}, ${plural(t.commands, 'command')} in <b>${plural(t.roundTrips, 'round trip')}</b> (${plural(t.flights, 'flight')}, max depth ${t.maxDepth}), ` +
      `${plural(t.pushes, 'push', 'pushes')}; wall ${esc(fmtMsTotal(t.wallMs))}: ${esc(timeSplit(t))}. ` +
      `Recorded on a link with RTT ${esc(recordedRttLabel(a))}, keys ${esc(a.trace.keys)}, trace ${a.trace.complete ? 'complete' : '<span class="warn">incomplete</span>'}.</p>`,
  );
  const redirects = redirectLine(a.redirects);
  if (redirects !== undefined) parts.push(`<p>Redirects: ${esc(redirects)}</p>`);
  for (const w of a.trace.warnings) parts.push(`<p class="note warn">${esc(w)}</p>`);

  parts.push('<h2>What if the link had another RTT</h2>');
  const rows = [{ label: `${recordedRttLabel(a)} (recorded)`, wallMs: a.recorded.wallMs }, ...a.projections.map((p) => ({ label: rttLabel(p.rttUs), wallMs: p.wallMs }))];
  parts.push(
    renderCategoryChart({
      name: 'analyze-projections',
      title: 'Projected wall time of the recorded session',
      subtitle: `${t.roundTrips} round trips; think and server time as recorded${isLossy(a) ? '; each round trip also pays the loss mean' : ''}`,
      categories: rows.map((r) => r.label),
      x: { label: 'wall time (ms)', scale: 'linear', zero: true },
      series: [{ label: 'projected wall time', style: seriesStyle(0), kind: 'bar', values: rows.map((r) => r.wallMs) }],
    }),
  );
  const withSetup = hasSetup(a.setup);
  const lossy = isLossy(a);
  const rowData = [a.recorded, ...a.projections];
  parts.push(
    table(
      ['RTT', 'projected wall', 'waiting', 'round trips', ...(withSetup ? ['set-up', 'set-up share'] : []), ...(lossy ? LOSS_HEADINGS : [])],
      rows.map((r, i) => [
        r.label, fmtMsTotal(r.wallMs), fmtMsTotal(rowData[i]!.waitMs), String(t.roundTrips),
        ...(withSetup ? [fmtMsTotal(rowData[i]!.setupMs), `${rowData[i]!.setupSharePct.toFixed(1)}%`] : []),
        ...(lossy ? lossColumnCells(rowData[i]!) : []),
      ]),
    ),
  );
  // The projected walls include the loss's mean cost: without the columns the page would not say why.
  if (lossy) parts.push(`<p class="note">${esc(LOSS_NOTE)}</p>`);
  if (withSetup) parts.push(`<p class="note">${esc(setupLine(a))}</p>`);
  if (a.setup.advice !== undefined) parts.push(`<p class="warn">${esc(a.setup.advice)}</p>`);
  if (a.chainedAlternative !== undefined) parts.push(`<p class="note">Note: ${esc(chainedAlternativeNote(a.chainedAlternative))}</p>`);
  parts.push(`<p class="note">${esc(modelNote(a))}</p>`);

  parts.push('<h2>Opportunities</h2>');
  if (a.opportunities.length === 0) parts.push('<p>None found: no run of single-command round trips long enough.</p>');
  else {
    parts.push(
      table(
        ['#', 'conn', 'kind', 'command', 'round trips', 'saved', ...a.projections.map((p) => `saved @${rttLabel(p.rttUs)}`), 'instead'],
        a.opportunities.map((op, i) => [
          String(i + 1), String(op.conn), op.kind, op.command, String(op.count), String(op.roundTripsSaved),
          ...op.savedMs.map((s) => fmtMsTotal(s.savedMs)), insteadCell(op),
        ]),
        new Set([2, 3, 6 + a.projections.length]),
      ),
    );
    parts.push(`<p class="note">${esc(OPPORTUNITY_CAVEAT.join(' '))}</p>`);
  }

  parts.push('<h2>Connections</h2>');
  // Cluster traces: which node each connection went to.
  const byNode = a.nodes.length > 0;
  parts.push(
    table(
      ['conn', 'client', ...(byNode ? ['node'] : []), 'commands', 'round trips', 'flights', 'max depth', 'wait', 'think', 'server', 'span'],
      a.connections.map((c) => [
        String(c.conn), c.client ?? '-', ...(byNode ? [c.node ?? '-'] : []), String(c.commands), String(c.roundTrips), String(c.flights), String(c.maxDepth),
        fmtMsTotal(c.waitMs), fmtMsTotal(c.thinkMs), fmtMsTotal(c.serverMs), fmtMsTotal(c.spanMs),
      ]),
      new Set(byNode ? [1, 2] : [1]),
    ),
  );
  if (byNode) {
    const { head, rows: nodeRows } = nodeCells(a);
    parts.push('<h2>Nodes</h2>', '<p class="note">Cluster: each connection went to one node\'s listener.</p>', table(head, nodeRows, new Set([0, 1])));
  }

  // The text report's depth table: how much of the session was one request per round trip.
  parts.push('<h2>Requests per round trip</h2>', table(DEPTH_HEADINGS, depthCells(a)));

  parts.push('<h2>Top commands by time waited</h2>');
  parts.push(
    table(
      ['command', 'count', 'errors', 'round trips', 'waited', 'share', 'mean latency', 'server'],
      a.topCommands.map((c) => [c.name, String(c.count), String(c.errors), String(c.roundTrips), fmtMsTotal(c.waitedMs), `${c.sharePct.toFixed(1)}%`, (c.meanUs === null ? '-' : fmtUsSetting(Math.round(c.meanUs))), fmtMsTotal(c.serverMs)]),
      new Set([0]),
    ),
  );
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>redis-rtt analyze</title><style>${CSS}</style></head>\n<body>\n${parts.join('\n')}\n</body></html>\n`;
}

/**
 * How the projection was made. A cluster or Sentinel trace's round trips are chained across connections
 * (projection.ts chainConnections), as is any with --chain-connections, so the single-node caveat ("opened after"
 * only) would misstate it.
 */
function modelNote(a: Analysis): string {
  const asRecorded = "Each round trip pays the new RTT instead of the recorded one; the client's think time, Redis's time and the number of round trips stay as recorded.";
  if (a.nodes.length > 0 && a.chainedConnections) {
    return (
      `${asRecorded} Cluster or Sentinel trace: each round trip waits for whatever finished before it on any node's connection ` +
      '(one client driving its nodes in turn); independent clients recorded together are serialised, so their projection runs high.'
    );
  }
  if (a.chainedConnections) return `${asRecorded} ${chainLine(a).replace(/^c/, 'C')}.`;
  return `${asRecorded} Dependencies between connections other than "opened after" are not visible.`;
}

function table(head: string[], rows: string[][], leftCols: ReadonlySet<number> = new Set([0])): string {
  const cls = (i: number) => (leftCols.has(i) ? ' class="l"' : '');
  const th = head.map((h, i) => `<th${cls(i)}>${esc(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${esc(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}
