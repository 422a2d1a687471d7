import { parseDurationUs } from '../../src/units.js';
import { ConfigError } from '../../src/errors.js';

/** One cell of the latency table: a one-way delay down of `delayMs` (whole ms: toxiproxy's unit) and redis-benchmark -c. */
export interface Cell {
  delayMs: number;
  clients: number;
}

/** One throughput shape, no delay: redis-benchmark -c and -P. */
export interface Shape {
  clients: number;
  pipeline: number;
}

/** The table of issue #23: L = 1, 5, 20 ms with one client, then with 50. */
export const DEFAULT_CELLS = '1ms:1,5ms:1,20ms:1,1ms:50,5ms:50,20ms:50';
export const DEFAULT_SHAPES = '50x16,1x1';

export const cellLabel = (c: Cell): string => `${c.delayMs} ms, -c ${c.clients}`;
export const shapeLabel = (s: Shape): string => `-c ${s.clients} -P ${s.pipeline}`;

/** "1ms:1,20ms:50" -> cells; whole milliseconds (0-10000) and 1-10000 clients, each cell once. */
export function parseCells(text: string, flag = '--cells'): Cell[] {
  const accepts = 'a comma-separated list of DELAYms:CLIENTS with whole milliseconds, e.g. 1ms:1,20ms:50';
  return parseList(text, flag, accepts, /^(\d+)ms:(\d+)$/, (delayMs, clients) => (delayMs <= 10_000 && clients >= 1 && clients <= 10_000 ? { delayMs, clients } : undefined));
}

/** "50x16,1x1" -> shapes (CLIENTSxPIPELINE); "none" for no throughput runs. */
export function parseShapes(text: string, flag = '--shapes'): Shape[] {
  if (text === 'none') return [];
  const accepts = 'a comma-separated list of CLIENTSxPIPELINE, e.g. 50x16,1x1, or none';
  return parseList(text, flag, accepts, /^(\d+)x(\d+)$/, (clients, pipeline) =>
    clients >= 1 && clients <= 10_000 && pipeline >= 1 && pipeline <= 1000 ? { clients, pipeline } : undefined,
  );
}

function parseList<T>(text: string, flag: string, accepts: string, form: RegExp, make: (a: number, b: number) => T | undefined): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    const m = form.exec(part);
    const item = m ? make(Number(m[1]), Number(m[2])) : undefined;
    if (item === undefined || seen.has(part)) throw new ConfigError(flag, text, accepts);
    seen.add(part);
    out.push(item);
  }
  return out;
}

/**
 * The order of the targets in one round of one cell: rotated by round and cell, so no target is
 * always first after a cell's link change or always last before the next.
 */
export function rotated<T>(targets: readonly T[], round: number, cellIndex: number): T[] {
  const k = (round + cellIndex) % targets.length;
  return [...targets.slice(k), ...targets.slice(0, k)];
}

/**
 * redis-benchmark -n for about `seconds` of one run at this cell: each client does one request
 * per delay plus ~0.2 ms (loopback and Redis), at least 20 per client and at least `minRequests`
 * (--min-requests: a one-client run at 20 ms is 199 requests in 4 s, whose p99 is its second largest).
 */
export function requestsFor(cell: Cell, seconds: number, minRequests = 0): number {
  return Math.max(20 * cell.clients, minRequests, Math.ceil((seconds * 1000 * cell.clients) / (cell.delayMs + 0.2)));
}

/**
 * `--seconds`: a duration (200ms, 4s); a bare number is seconds, as the flag's name says (it
 * once read a bare 4 as 4 ms, which made every one-client run 20 requests long).
 */
/** --nice: a nice value for the proxies, -20 (most favoured) to 19. */
export function parseNice(text: string): number {
  const n = /^\s*-?\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < -20 || n > 19) throw new ConfigError('--nice', text, 'an integer from -20 to 19');
  return n;
}

export function parseRunSeconds(text: string, flag = '--seconds'): number {
  const bare = /^\s*\d+(?:\.\d+)?\s*$/.test(text);
  return parseDurationUs(bare ? `${text.trim()}s` : text, flag) / 1e6;
}
