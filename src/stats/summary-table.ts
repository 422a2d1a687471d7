/**
 * A StatsSnapshot as a plain-text table for stderr (the proxy prints it on SIGINT/SIGTERM).
 * Pure: snapshot in, text out; no colours, fixed-width columns.
 */
import { fmtUsSetting } from '../format.js';
import { renderGrid, type Align } from '../text-grid.js';
import { compareDepthBuckets } from '../tap/counters.js';
import type { LinkSettings } from '../link/types.js';
import type { CommandStats, StatsSnapshot } from './types.js';

export interface SummaryTableOptions {
  /** Commands listed, most frequent first. @default 15 */
  topCommands?: number;
  /**
   * The links, where the snapshot's `link` is one node's of several (cluster mode: the seed's,
   * while nodes in other zones run other links); in place of `link up .. down ..`.
   */
  links?: string;
}

const HEADERS = ['command', 'count', 'errors', 'server p50', 'server p99', 'client p50', 'client p99'];

export function renderSummaryTable(s: StatsSnapshot, options: SummaryTableOptions = {}): string {
  const top = options.topCommands ?? 15;
  const t = s.totals;
  const lines: string[] = [];
  const perTrip = t.roundTrips > 0 ? (t.commands / t.roundTrips).toFixed(1) : '-';
  lines.push(
    `connections ${s.connections.total} (${s.connections.active} open${refused(s)})   ` +
      (options.links ?? `link ${linkText(s.link)}${movingLink(s)}`),
  );
  // Without the tap its counts are zeros nobody measured: said so, not printed as 0.
  if (s.countsOff) return `${[...lines, 'commands, replies, round trips and bytes: not counted (no tap)'].join('\n')}\n`;
  lines.push(
    `commands ${t.commands}   replies ${t.replies}   errors ${t.errorReplies}   pushes ${t.pushes}   blocking ${t.blockingCommands}`,
  );
  lines.push(`round trips ${t.roundTrips}   flights ${t.flights}   commands/round trip ${perTrip}   max depth ${t.maxDepth}`);
  lines.push(
    `bytes up ${t.bytesUp} (${t.chunksUp} reads)   down ${t.bytesDown} (${t.chunksDown} reads)` +
      (t.unparsedBytes > 0 ? `   UNPARSED ${t.unparsedBytes}` : ''),
  );
  const depths = Object.keys(t.depthHistogram).sort(compareDepthBuckets);
  if (depths.length > 0) lines.push(`depth  ${depths.map((d) => `${d}:${t.depthHistogram[d]}`).join('  ')}`);
  const errors = Object.entries(t.errorsByPrefix).sort((a, b) => b[1] - a[1]);
  if (errors.length > 0) lines.push(`errors ${errors.map(([p, n]) => `${p}:${n}`).join('  ')}`);

  const commands = Object.entries(s.commands).sort((a, b) => b[1].count - a[1].count);
  if (commands.length > 0) {
    lines.push('');
    const rows = commands.slice(0, top).map(([name, c]) => commandRow(name, c));
    // First column left-aligned, the others right-aligned, two spaces between.
    const align: Align[] = HEADERS.map((_, i) => (i === 0 ? 'left' : 'right'));
    lines.push(...renderGrid([HEADERS, ...rows].map((cells) => ({ cells })), align));
    if (commands.length > top) lines.push(`... and ${commands.length - top} more commands`);
  }
  return `${lines.join('\n')}\n`;
}

/** A link's settings as the summary's first line gives them: `up 10ms down 10ms`, jitter and bandwidth when set. */
export function linkText(l: LinkSettings): string {
  return (
    `up ${fmtUsSetting(l.upUs)} down ${fmtUsSetting(l.downUs)}` +
    (l.jitterUs > 0 ? ` jitter ${fmtUsSetting(l.jitterUs)} ${l.jitterDist}` : '') +
    (l.bandwidthBps > 0 ? ` bandwidth ${l.bandwidthBps} bit/s` : '')
  );
}

/** With --max-connections: the clients closed at once at the cap. */
function refused(s: StatsSnapshot): string {
  return s.connections.refused === undefined ? '' : `, ${s.connections.refused} refused`;
}

/**
 * A moving link's delays at the snapshot: `link` holds the settings (a schedule's steps), and a
 * series replaces their RTT and a wave rides on it, so those alone misstate the delay that ran.
 */
function movingLink(s: StatsSnapshot): string {
  const t = s.timeline;
  if (t === undefined) return '';
  const by = [t.series ? 'series' : '', t.wave ? 'wave' : '', t.schedule ? 'schedule' : ''].filter((w) => w !== '').join(' + ');
  return ` (now up ${fmtUsSetting(t.delaysUs.upUs)} down ${fmtUsSetting(t.delaysUs.downUs)}, moved by the ${by})`;
}

function commandRow(name: string, c: CommandStats): string[] {
  const lat = (n: number, count: number): string => (count === 0 ? '-' : fmtUsSetting(n));
  return [
    // Names are clean in practice (the framer names garbage "?"), but a table must stay a table.
    printable(c.blocking ? `${name} (blocking)` : name),
    String(c.count),
    String(c.errors),
    lat(c.serverUs.p50, c.serverUs.count),
    lat(c.serverUs.p99, c.serverUs.count),
    lat(c.clientUs.p50, c.clientUs.count),
    lat(c.clientUs.p99, c.clientUs.count),
  ];
}


function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- replacing control characters is the point
  return text.replace(/[\x00-\x1f\x7f]/g, '?');
}
