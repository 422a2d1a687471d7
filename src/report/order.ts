/**
 * How results are grouped, ordered and named, decided once so the table, the charts and the
 * reading agree: links from nearest to farthest (direct before the local proxy), then modes in
 * MODES order, then batch size.
 */
import { isOk, MODES, WORKLOADS, type BenchResult, type Mode, type Workload } from '../results/types.js';

export { isOk };

export interface LinkGroup {
  link: string;
  linkRttUs: number;
  /** False for `direct`: no proxy, so no round trips or bytes were counted. */
  proxied: boolean;
  results: BenchResult[];
}

export function isDirect(link: string): boolean {
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

/** Workloads that share a mode and batch need naming apart; otherwise the mode says enough. */
export function ambiguousWorkloads(results: readonly BenchResult[]): Set<string> {
  const seen = new Map<string, Set<Workload>>();
  for (const r of results) {
    const key = `${r.mode}/${r.batch}`;
    const s = seen.get(key) ?? new Set<Workload>();
    s.add(r.workload);
    seen.set(key, s);
  }
  return new Set([...seen].filter(([, s]) => s.size > 1).map(([k]) => k));
}

/** "seq", "pipeline 100", "mget 100"; "seq (get)" only when two workloads share the label. */
export function configLabel(r: BenchResult, ambiguous: ReadonlySet<string> = new Set()): string {
  const base = r.mode === 'seq' ? 'seq' : `${r.mode} ${r.batch}`;
  return ambiguous.has(`${r.mode}/${r.batch}`) ? `${base} (${r.workload})` : base;
}

/**
 * The mode the batch-size charts follow: pipeline when it ran; else the batched mode that can be
 * compared with a seq run of its workload, tried at the most batch sizes. Null when only seq ran.
 */
export function primaryBatchMode(results: readonly BenchResult[]): Mode | null {
  const ok = results.filter(isOk);
  const seqWorkloads = new Set(ok.filter((r) => r.mode === 'seq').map((r) => r.workload));
  const score = new Map<Mode, { batches: Set<number>; comparable: boolean }>();
  for (const r of ok) {
    if (r.mode === 'seq') continue;
    const s = score.get(r.mode) ?? { batches: new Set<number>(), comparable: false };
    s.batches.add(r.batch);
    s.comparable ||= seqWorkloads.has(r.workload);
    score.set(r.mode, s);
  }
  if (score.has('pipeline')) return 'pipeline';
  const value = (m: Mode): number => {
    const s = score.get(m);
    return s ? (s.comparable ? 1e6 : 0) + s.batches.size : -1;
  };
  let best: Mode | null = null;
  for (const m of MODES) if (score.has(m) && (best === null || value(m) > value(best))) best = m;
  return best;
}

/** The workload most results of `mode` used (the one its chart lines follow). */
export function mainWorkload(results: readonly BenchResult[], mode: Mode): Workload | null {
  const counts = new Map<Workload, number>();
  for (const r of results) if (r.mode === mode && isOk(r)) counts.set(r.workload, (counts.get(r.workload) ?? 0) + 1);
  let best: Workload | null = null;
  for (const w of WORKLOADS) if ((counts.get(w) ?? 0) > (best ? (counts.get(best) ?? 0) : 0)) best = w;
  return best;
}

function rank<T>(list: readonly T[], v: T): number {
  const i = list.indexOf(v);
  return i < 0 ? list.length : i;
}
