import { ConfigError } from '../errors.js';

/** A measured RTT over time, as `--rtt-series` replays it: each value holds until the next. */
export interface RttSeries {
  /** Row times from the first row, microseconds, non-decreasing; atUs[0] is 0. */
  atUs: number[];
  rttUs: number[];
  /** When a loop starts over: the last row holds as long as the gap before it (1 s for a single row). */
  periodUs: number;
}

/** `[1733112345.123456] 64 bytes from 10.0.0.1: icmp_seq=1 ttl=57 time=12.3 ms` (ping -D). */
const PING_LINE = /^\[(\d+(?:\.\d+)?)\].*\btime[=<]\s*(\d+(?:\.\d+)?)\s*ms/;
const PING_STAMP = /^\[\d+(?:\.\d+)?\]/;
/** A ping reply with no `[epoch]` stamp before it: ping run without -D (or a ping that has no -D). */
const UNSTAMPED_REPLY = /\bicmp_seq=\d+.*\btime[=<]\s*\d/;
const CSV_ROW = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$/;
const ACCEPTS = 'rows of seconds,rtt_ms (e.g. 0,1.2), or the output of ping -D';
/** As for every delay (`--rtt`, `PUT /link`): one hour. */
const MAX_RTT_US = 3_600_000_000;

/**
 * Parses a CSV of `seconds,rtt_ms` (a header line, blank lines and # comments allowed) or the
 * output of `ping -D` as is: its epoch stamps are taken relative to the first reply, and lines
 * that are not replies (the banner, timeouts, the summary) are skipped, since a lost ping has no
 * RTT to replay. A CSV line that is neither a row nor a header is refused with its number.
 */
export function parseRttSeries(text: string, flag = '--rtt-series'): RttSeries {
  const lines = text.split(/\r?\n/);
  const ping = lines.some((l) => PING_STAMP.test(l));
  const rows: { atS: number; rttMs: number; line: number; raw: string }[] = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (ping) {
      const m = PING_LINE.exec(line);
      if (m) rows.push({ atS: Number(m[1]), rttMs: Number(m[2]), line: i + 1, raw });
      return;
    }
    if (line === '' || line.startsWith('#')) return;
    const m = CSV_ROW.exec(line);
    if (m) rows.push({ atS: Number(m[1]), rttMs: Number(m[2]), line: i + 1, raw });
    // A header is words; a line of numbers that is not a row (a negative RTT) is refused.
    else if (rows.length > 0 || /\d\s*,\s*-?\d/.test(line)) throw new ConfigError(`${flag} line ${i + 1}`, raw, ACCEPTS);
  });
  if (rows.length === 0) {
    // Each reply read as a header line: said as 'no row', which did not tell why.
    const unstamped = ping ? 0 : lines.filter((l) => UNSTAMPED_REPLY.test(l)).length;
    if (unstamped > 0) throw new ConfigError(flag, `${unstamped} ping repl(ies), none with a time stamp`, "ping -D's output: run ping with -D, which stamps each reply with its time");
    throw new ConfigError(flag, `${lines.length} line(s), no row`, `at least one row: ${ACCEPTS}`);
  }
  const first = rows[0]!.atS;
  const atUs: number[] = [];
  const rttUs: number[] = [];
  // A refused row is shown as written, as a line that is no row is: not the number read from it (5.0 as 5).
  for (const r of rows) {
    const at = Math.round((r.atS - first) * 1e6);
    if (atUs.length > 0 && at < atUs[atUs.length - 1]!) throw new ConfigError(`${flag} line ${r.line}`, r.raw, 'rows in time order');
    const rtt = Math.round(r.rttMs * 1000);
    if (rtt > MAX_RTT_US) throw new ConfigError(`${flag} line ${r.line}`, r.raw, `an RTT of at most 1 hour (${MAX_RTT_US / 1000} ms)`);
    atUs.push(at);
    rttUs.push(rtt);
  }
  const n = atUs.length;
  const lastGapUs = n > 1 ? atUs[n - 1]! - atUs[n - 2]! : 0;
  return { atUs, rttUs, periodUs: atUs[n - 1]! + (lastGapUs > 0 ? lastGapUs : 1_000_000) };
}

/**
 * Reads a series at increasing times in O(1) each (a cursor moves forward; a loop's wrap starts it
 * over), since it is read for every chunk while it runs.
 */
export class RttSeriesCursor {
  private index = 0;

  constructor(
    readonly series: RttSeries,
    /** Keep the last value at the end instead of starting over (--rtt-series-once). */
    private readonly once: boolean,
  ) {}

  /** The row that holds at `elapsedNs` from the start: its index and RTT. */
  rowAt(elapsedNs: number): number {
    const { atUs } = this.series;
    let tUs = elapsedNs / 1000;
    if (!this.once) tUs %= this.series.periodUs;
    if (tUs < atUs[this.index]!) this.index = 0;
    while (this.index + 1 < atUs.length && atUs[this.index + 1]! <= tUs) this.index++;
    return this.index;
  }

  rttUsAt(elapsedNs: number): number {
    return this.series.rttUs[this.rowAt(elapsedNs)]!;
  }
}
