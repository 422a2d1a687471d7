/**
 * The one order of bench results: links from nearest to farthest (direct before the local proxy,
 * then as first given), then modes in MODES order, then batch size. The JSON's results are in it
 * (workload/derive.ts), and the table, the charts and the reading group by it (report/order.ts).
 */
import { MODES, WORKLOADS, type BenchResult } from './types.js';

export interface LinkGroup {
  link: string;
  linkRttUs: number;
  /** False for `direct`: no proxy, so no round trips or bytes were counted. */
  proxied: boolean;
  results: BenchResult[];
}

function isDirect(link: string): boolean {
  return link.trim().toLowerCase() === 'direct';
}

export function compareConfig(a: BenchResult, b: BenchResult): number {
  return (
    rank(MODES, a.mode) - rank(MODES, b.mode) ||
    a.batch - b.batch ||
    rank(WORKLOADS, a.workload) - rank(WORKLOADS, b.workload) ||
    a.n - b.n
  );
}

/** Results grouped per link, nearest link first; rows inside a group in config order. */
export function groupByLink(results: readonly BenchResult[]): LinkGroup[] {
  const groups = new Map<string, LinkGroup & { first: number }>();
  results.forEach((r, i) => {
    let g = groups.get(r.link);
    if (!g) {
      g = { link: r.link, linkRttUs: r.linkRttUs, proxied: !isDirect(r.link), results: [], first: i };
      groups.set(r.link, g);
    }
    g.results.push(r);
  });
  return [...groups.values()]
    .sort((a, b) => a.linkRttUs - b.linkRttUs || Number(a.proxied) - Number(b.proxied) || a.first - b.first)
    .map(({ first: _first, ...g }) => ({ ...g, results: [...g.results].sort(compareConfig) }));
}

/** The results in that order: link blocks, nearest first, each in config order. */
export function inTableOrder(results: readonly BenchResult[]): BenchResult[] {
  return groupByLink(results).flatMap((g) => g.results);
}

function rank<T>(list: readonly T[], v: T): number {
  const i = list.indexOf(v);
  return i < 0 ? list.length : i;
}
