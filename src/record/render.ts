/**
 * The analysis as a terminal report (tables) and as the JSON document `analyze --json` prints.
 * Pure: analysis in, string out.
 */
import { renderGrid, RULE, type Align, type GridRow } from '../text-grid.js';
import { fmtMsTotal, fmtUsSetting } from '../format.js';
import type { Analysis, ProjectionRow, Totals } from './analyze.js';
import { OPPORTUNITY_CAVEAT, type Opportunity } from './opportunities.js';
import { hasSetup } from './setup.js';
import { redirectLine } from './nodes.js';

export interface RenderOptions {
  /** The trace's path, shown in the heading. */
  file?: string;
  /** Opportunities listed. @default 10 */
  maxOpportunities?: number;
  /** Connections listed (those that waited longest). @default 20 */
  maxConnections?: number;
}

/** The JSON document: { trace, totals, connections, nodes, redirects, recorded, projections, setup, opportunities, topCommands }. */
export function renderJson(a: Analysis, file?: string): string {
  const doc = file === undefined ? a : { ...a, trace: { file, ...a.trace } };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * Waiting and think time. Both are sums over connections, so with several they can exceed the wall (three
 * connections idle side by side think three times over): said, or 177 ms of think in a 98 ms wall read as an error.
 */
export function timeSplit(t: Totals): string {
  const summed = t.connections > 1 ? ` (each summed over the ${t.connections} connections)` : '';
  return `waiting on Redis ${fmtMsTotal(t.waitMs)} (Redis itself ${fmtMsTotal(t.serverMs)}), client think time ${fmtMsTotal(t.thinkMs)}${summed}`;
}

/** Said when chaining the connections would project the session much higher (analyze.ts chainedAlternative). */
export function chainedAlternativeNote(c: NonNullable<Analysis['chainedAlternative']>): string {
  return (
    `with --chain-connections (one application using its connections in turn: a blocking or subscriber connection it waits on) ` +
    `RTT ${rttLabel(c.rttUs)} projects to ${fmtMsTotal(c.wallMs)} (+${c.differencePct.toFixed(1)}%); as above if they serve concurrent tasks (a pool)`
  );
}

/**
 * Said when the projections chained round trips across connections (a cluster trace, or
 * --chain-connections), since that serialises connections a pool used in parallel.
 */
export function chainLine(a: Analysis): string {
  const why = a.nodes.length > 0 ? 'a trace of cluster or Sentinel nodes: one client driving its nodes in turn' : '--chain-connections: one application using them in turn';
  return `connections chained: each round trip also waits for whatever finished before it on any connection (${why}); connections used in parallel are serialised, so their projection runs high`;
}

/** Whether the projections were made with `--loss` (then the tables gain the loss columns). */
export function isLossy(a: Analysis): boolean {
  return a.projections.some((p) => p.loss !== undefined);
}

/** The loss columns' headings, as the text report and the HTML page show them. */
export const LOSS_HEADINGS = ['loss mean/rt', 'rt p99', 'rt p99.9', 'rt resent'];

/** What the loss columns hold: the mean is what loss adds to a round trip, the tail is a whole round trip. */
export const LOSS_NOTE =
  'loss: loss mean/rt is the time loss adds to each round trip on average, which every round trip pays here (the loss ' +
  "model's mean for a one-segment request and reply, resent as Linux TCP would); rt p99 / p99.9 are one round trip's " +
  'tail, its RTT included';

/** A projection's loss cells (empty for the recorded row, which had no --loss). */
export function lossColumnCells(p: ProjectionRow): string[] {
  return p.loss ? [fmtMsTotal(p.loss.meanMs), fmtMsTotal(p.loss.p99Ms), fmtMsTotal(p.loss.p999Ms), `${p.loss.slowSharePct}%`] : ['', '', '', ''];
}

/** "85ms", "200us", "0" for RTTs. */
export function rttLabel(rttUs: number): string {
  return rttUs === 0 ? '0' : fmtUsSetting(rttUs);
}

/**
 * The RTT the session was recorded at: the header's link, or, when a cluster's nodes had links of
 * their own (zones, --node-link), theirs ("200us-1.2ms per node"); the header's is then no node's.
 * A link that changed while recording reads as its range ("0-10ms over time"): the header's alone
 * would say a session that ran partly at 10 ms was recorded at 0.
 */
export function recordedRttLabel(a: Analysis): string {
  const own = [...new Set(a.nodes.flatMap((n) => n.linkRttsUs))].sort((x, y) => x - y);
  if (own.length === 0 || (own.length === 1 && own[0] === a.trace.recordedRttUs)) {
    const changed = a.trace.linkRttsUs;
    if (changed !== undefined && changed.length > 1) return `${rttLabel(changed[0]!)}-${rttLabel(changed.at(-1)!)} over time`;
    return rttLabel(a.trace.recordedRttUs);
  }
  return `${own.length === 1 ? rttLabel(own[0]!) : `${rttLabel(own[0]!)}-${rttLabel(own.at(-1)!)}`} per node`;
}

export function renderText(a: Analysis, o: RenderOptions = {}): string {
  const t = a.totals;
  const out: string[] = [];
  const link = a.trace.link;
  out.push(`redis-rtt analyze${o.file ? `: ${o.file}` : ''}`);
  out.push(
    `trace: version ${a.trace.version}, started ${a.trace.startedAt || '?'}, keys ${a.trace.keys}, recorded link RTT ${recordedRttLabel(a)}` +
      `${link.jitterUs > 0 ? ` (jitter ${fmtUsSetting(link.jitterUs)})` : ''}${a.trace.linkChanges > 0 ? `, ${a.trace.linkChanges} link change(s)` : ''}` +
      `, ${a.trace.complete ? 'complete' : a.trace.truncation ? `TRUNCATED (${a.trace.truncation.reason} at ${a.trace.truncation.bytes} bytes)` : 'no end line (still recording, or cut off)'}`,
  );
  out.push(
    `session: ${plural(t.connections, 'connection')}, ${plural(t.commands, 'command')} in ${plural(t.roundTrips, 'round trip')} ` +
      `(${plural(t.flights, 'flight')}, max depth ${t.maxDepth}), ${plural(t.pushes, 'push', 'pushes')}, wall ${fmtMsTotal(t.wallMs)}`,
  );
  out.push(`time: ${timeSplit(t)}`);
  const redirects = redirectLine(a.redirects);
  if (redirects !== undefined) out.push(`redirects: ${redirects}`);
  for (const w of a.trace.warnings) out.push(`note: ${w}`);

  out.push('', 'connections');
  // Cluster traces: which node each connection went to.
  const byNode = a.nodes.length > 0;
  const nodeCell = (c: { node?: string } | undefined): string[] => (byNode ? [c?.node ?? '-'] : []);
  const connRows: GridRow[] = [{ cells: ['conn', 'client', ...(byNode ? ['node'] : []), 'commands', 'round trips', 'flights', 'max depth', 'wait', 'think', 'server', 'span'] }];
  const maxConns = o.maxConnections ?? 20;
  const shown = a.connections.length > maxConns ? [...a.connections].sort((x, y) => y.waitMs - x.waitMs).slice(0, maxConns) : a.connections;
  for (const c of shown) {
    connRows.push({ cells: [String(c.conn), c.client ?? '-', ...nodeCell(c), n(c.commands), n(c.roundTrips), n(c.flights), n(c.maxDepth), fmtMsTotal(c.waitMs), fmtMsTotal(c.thinkMs), fmtMsTotal(c.serverMs), fmtMsTotal(c.spanMs)] });
  }
  if (a.connections.length > 1) {
    connRows.push(RULE, { cells: ['total', '', ...nodeCell({ node: '' }), n(t.commands), n(t.roundTrips), n(t.flights), n(t.maxDepth), fmtMsTotal(t.waitMs), fmtMsTotal(t.thinkMs), fmtMsTotal(t.serverMs), fmtMsTotal(t.wallMs)] });
  }
  out.push(...grid(connRows, ['left', 'left', ...(byNode ? ['left' as const] : []), 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right']));
  if (shown.length < a.connections.length) out.push(`  ... ${a.connections.length - shown.length} more connections (the ${maxConns} that waited longest are shown; --json lists all)`);

  if (a.nodes.length > 0) out.push('', 'nodes (cluster or Sentinel mode: each connection went to one node\'s listener)', ...nodeTable(a));

  out.push('', 'requests per round trip');
  out.push(...grid([{ cells: DEPTH_HEADINGS }, ...depthCells(a).map((cells) => ({ cells }))], ['left', 'right', 'right']));

  out.push('', `what if the link had another RTT (same ${plural(t.roundTrips, 'round trip')}; think and server time as recorded)`);
  const su = a.setup;
  const withSetup = hasSetup(su);
  if (a.chainedConnections) out.push(`  ${chainLine(a)}`);
  if (withSetup) out.push(`  ${setupLine(a)}`);
  const setupCells = (p: { setupMs: number; setupSharePct: number }): string[] => (withSetup ? [fmtMsTotal(p.setupMs), `${p.setupSharePct.toFixed(1)}%`] : []);
  const lossy = isLossy(a);
  const lossCells = (p: ProjectionRow): string[] => (lossy ? lossColumnCells(p) : []);
  const projRows: GridRow[] = [
    { cells: ['RTT', 'projected wall', 'waiting', 'x recorded', ...(withSetup ? ['set-up', 'set-up share'] : []), ...(lossy ? LOSS_HEADINGS : [])] },
  ];
  projRows.push({ cells: [`${recordedRttLabel(a)} (recorded)`, fmtMsTotal(a.recorded.wallMs), fmtMsTotal(a.recorded.waitMs), '1.00', ...setupCells(a.recorded), ...lossCells(a.recorded)] });
  for (const p of a.projections) {
    projRows.push({ cells: [rttLabel(p.rttUs), fmtMsTotal(p.wallMs), fmtMsTotal(p.waitMs), a.recorded.wallMs > 0 ? (p.wallMs / a.recorded.wallMs).toFixed(2) : '-', ...setupCells(p), ...lossCells(p)] });
  }
  out.push(...grid(projRows, ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right']));
  if (lossy) out.push(`  ${LOSS_NOTE}`);
  if (su.advice !== undefined) out.push(`  note: ${su.advice}`);
  if (a.chainedAlternative !== undefined) out.push(`  note: ${chainedAlternativeNote(a.chainedAlternative)}`);

  const max = o.maxOpportunities ?? 10;
  out.push('', 'opportunities: round trips in a row that one pipeline or multi-key command could do at once, if independent');
  if (a.opportunities.length === 0) {
    out.push('none found (no run of single-command round trips long enough)');
  } else {
    const rtts = a.projections.map((p) => p.rttUs);
    const oppRows: GridRow[] = [{ cells: ['#', 'conn', 'kind', 'command', 'round trips', 'saved', ...rtts.map((r) => `saved @${rttLabel(r)}`), 'instead'] }];
    a.opportunities.slice(0, max).forEach((op, i) => {
      oppRows.push({
        cells: [
          String(i + 1), String(op.conn), op.kind, op.command, n(op.count), n(op.roundTripsSaved),
          ...op.savedMs.map((s) => fmtMsTotal(s.savedMs)),
          insteadCell(op),
        ],
      });
    });
    out.push(...grid(oppRows, ['right', 'right', 'left', 'left', 'right', 'right', ...rtts.map(() => 'right' as const), 'left']));
    if (a.opportunities.length > max) out.push(`... and ${a.opportunities.length - max} more (--json lists them all)`);
    out.push(...OPPORTUNITY_CAVEAT.map((l) => `  ${l}`));
  }

  out.push('', 'top commands by time waited (a round trip shared equally among its commands)');
  const topRows: GridRow[] = [{ cells: ['command', 'count', 'errors', 'round trips', 'waited', 'share', 'mean latency', 'server'] }];
  for (const c of a.topCommands) {
    topRows.push({ cells: [c.name, n(c.count), n(c.errors), String(c.roundTrips), fmtMsTotal(c.waitedMs), `${c.sharePct.toFixed(1)}%`, (c.meanUs === null ? '-' : fmtUsSetting(Math.round(c.meanUs))), fmtMsTotal(c.serverMs)] });
  }
  out.push(...grid(topRows, ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right']));
  return `${out.join('\n')}\n`;
}

/**
 * An opportunity's advice, as the text report and the HTML page show it. Fewer distinct keys than commands
 * (a --record-keys hashed trace): the loop reads the same keys again, and a cache would help too.
 */
export function insteadCell(op: Opportunity): string {
  return `${op.instead}${op.distinctKeys !== undefined && op.distinctKeys < op.count ? ` [${plural(op.distinctKeys, 'distinct key')}]` : ''}`;
}

/**
 * "connection set-up: 40 connections opened while recording (40 TLSv1.3); round trips before the first command:
 * 40 TCP connect + 40 TLS + 40 of set-up commands (HELLO 40) = 3 per connection"
 */
export function setupLine(a: Analysis): string {
  const su = a.setup;
  const tls = Object.entries(su.tls).map(([v, count]) => `${count} ${v}`).join(', ');
  const cmds = Object.entries(su.setupCommands).map(([name, count]) => `${name} ${count}`).join(', ');
  return (
    `connection set-up: ${plural(su.opened, 'connection')} opened while recording${tls ? ` (${tls})` : ''}; round trips before the first command: ` +
    `${su.tcpRoundTrips} TCP connect${tls ? ` + ${su.tlsRoundTrips} TLS` : ''} + ${su.commandRoundTrips} of set-up commands${cmds ? ` (${cmds})` : ''} = ${su.perConnection} per connection`
  );
}

/** The requests-per-round-trip table (text and HTML): one row per depth bucket, smallest first. */
export const DEPTH_HEADINGS = ['depth', 'round trips', 'share'];
export function depthCells(a: Analysis): string[][] {
  const t = a.totals;
  const buckets = Object.entries(t.depthHistogram).sort((x, y) => Number(x[0].split('-')[0]) - Number(y[0].split('-')[0]));
  return buckets.map(([b, count]) => [b, n(count), pct(count, t.roundTrips)]);
}

/** The nodes table's header and cells (text and HTML): one row per node, its link, connections, commands, round trips (with their share) and redirects. */
export function nodeCells(a: Analysis): { head: string[]; rows: string[][] } {
  return {
    head: ['node', 'listener', 'link RTT', 'connections', 'commands', 'round trips', 'share', 'wait', 'MOVED', 'ASK'],
    rows: a.nodes.map((nd) => [
      nd.node, nd.listen ?? '-', nd.linkRttsUs.map(rttLabel).join(', '), n(nd.connections), n(nd.commands), n(nd.roundTrips),
      `${nd.roundTripSharePct.toFixed(1)}%`, fmtMsTotal(nd.waitMs), n(nd.redirects.moved), n(nd.redirects.ask),
    ]),
  };
}

function nodeTable(a: Analysis): string[] {
  const { head, rows } = nodeCells(a);
  return grid([{ cells: head }, ...rows.map((cells) => ({ cells }))], ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right']);
}

function grid(rows: GridRow[], align: Align[]): string[] {
  return renderGrid(rows, align).map((l) => `  ${l}`);
}

function n(v: number): string {
  return String(v);
}

function pct(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '-';
}

/** "1 connection", "2 connections": the text report's and the HTML page's counts. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
