/**
 * How results are named, and which of them the charts follow. The order (links nearest first, then
 * modes in MODES order, then batch size) is results/order.ts's, which the JSON's results follow too,
 * so the table, the charts, the reading and the JSON agree.
 */
import { isOk, MODES, WORKLOADS, type BenchResult, type Mode, type Workload } from '../results/types.js';

export { compareConfig, groupByLink, type LinkGroup } from '../results/order.js';

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
