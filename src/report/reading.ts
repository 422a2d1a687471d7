/**
 * A two-line plain-language reading of a bench report: what batching did on the farthest link,
 * and what the same change did on the nearest one. Says nothing rather than something wrong when
 * the runs needed for a comparison are missing.
 */
import { isOk, type BenchReport, type MeasuredResult, type Mode, type Workload } from '../results/types.js';
import { fmtMsProse, fmtFactor, fmtUsLabel } from '../format.js';
import { groupByLink, type LinkGroup } from './order.js';

interface Comparison {
  group: LinkGroup;
  seq: MeasuredResult;
  /** Batched results of one mode, same workload and N as seq, by batch size. */
  batched: MeasuredResult[];
}

/** Share of the whole possible saving at which a batch size counts as "enough". */
const ENOUGH_OF_BEST_SAVING = 0.95;

export function renderReading(report: BenchReport): string[] {
  const comparisons = groupByLink(report.results)
    .map(compare)
    .filter((c): c is Comparison => c !== null);
  if (comparisons.length === 0) return [];
  // Farthest link first: that is where round trips dominate and batching shows its effect.
  const far = comparisons[comparisons.length - 1]!;
  const knee = kneeOf(far);
  const lines = [farLine(far, knee)];
  // Local (the proxy with no added delay) isolates what the RTT costs; direct is the fallback.
  const near = comparisons.find((c) => c.group.proxied && c.group.linkRttUs === 0) ?? comparisons[0]!;
  if (near !== far) {
    const same = near.batched.find((r) => r.mode === knee.mode && r.batch === knee.batch);
    if (same) lines.push(nearLine(near, same, far.seq.medianMs - knee.medianMs));
  }
  return lines;
}

function compare(group: LinkGroup): Comparison | null {
  const ok = group.results.filter(isOk).filter((r) => r.medianMs > 0);
  const seq = ok.find((r) => r.mode === 'seq');
  if (!seq) return null;
  const peers = ok.filter((r) => r.mode !== 'seq' && r.workload === seq.workload && r.n === seq.n);
  const mode = peers.some((r) => r.mode === 'pipeline') ? 'pipeline' : fastestMode(peers);
  if (!mode) return null;
  const batched = peers.filter((r) => r.mode === mode).sort((a, b) => a.batch - b.batch);
  return { group, seq, batched };
}

function fastestMode(results: MeasuredResult[]): Mode | null {
  const best = [...results].sort((a, b) => a.medianMs - b.medianMs)[0];
  return best ? best.mode : null;
}

/** Smallest batch that already gets 95% of the best saving: past it, bigger batches buy little. */
function kneeOf(c: Comparison): MeasuredResult {
  const bestMs = Math.min(...c.batched.map((r) => r.medianMs));
  const bestSaving = c.seq.medianMs - bestMs;
  return c.batched.find((r) => c.seq.medianMs - r.medianMs >= ENOUGH_OF_BEST_SAVING * bestSaving) ?? c.batched[0]!;
}

function farLine(c: Comparison, knee: MeasuredResult): string {
  const seq = c.seq;
  const head =
    `at ${linkName(c.group)}, ${changeName(knee.mode, knee.batch)} cut ${seq.n} ${opNoun(seq.workload)} ` +
    `from ${fmtMsProse(seq.medianMs)} to ${fmtMsProse(knee.medianMs)} (${fmtFactor(seq.medianMs / knee.medianMs)})`;
  const larger = c.batched.filter((r) => r.batch > knee.batch);
  if (larger.length === 0) return `${head}; ${knee.batch} was the largest batch tried.`;
  const best = larger.reduce((a, b) => (b.medianMs < a.medianMs ? b : a));
  const furtherMs = knee.medianMs - best.medianMs;
  if (furtherMs <= 0) return `${head}; larger batches were no faster.`;
  const pct = Math.max(1, Math.ceil((furtherMs / seq.medianMs) * 100));
  return (
    `${head}; beyond batch ${knee.batch} the gain is under ${pct}% of the seq time ` +
    `(best: ${fmtMsProse(best.medianMs)} at batch ${best.batch}).`
  );
}

function nearLine(c: Comparison, same: MeasuredResult, farSavingMs: number): string {
  const savedMs = c.seq.medianMs - same.medianMs;
  const only = savedMs < farSavingMs ? 'only ' : '';
  const verb = savedMs >= 0 ? `saves ${only}${fmtMsProse(savedMs)}` : `costs ${fmtMsProse(-savedMs)}`;
  return (
    `on ${linkName(c.group)} the same change ${verb} ` +
    `(${fmtMsProse(c.seq.medianMs)} -> ${fmtMsProse(same.medianMs)}, ${fmtFactor(c.seq.medianMs / same.medianMs)}).`
  );
}

function linkName(g: LinkGroup): string {
  if (!g.proxied) return `${g.link} (no proxy)`;
  return g.linkRttUs > 0 ? `${g.link} (+${fmtUsLabel(g.linkRttUs)} RTT)` : g.link;
}

function changeName(mode: Mode, batch: number): string {
  switch (mode) {
    case 'pipeline':
      return `pipelining ${batch}`;
    case 'multi':
      return `MULTI/EXEC of ${batch}`;
    case 'mget':
      return `MGET of ${batch} keys`;
    case 'mset':
      return `MSET of ${batch} keys`;
    case 'lua':
      return `a Lua script of ${batch}`;
    case 'auto':
      return `auto-pipelining (${batch} in flight)`;
    case 'seq':
      return 'a loop';
  }
}

function opNoun(w: Workload): string {
  return `${w.toUpperCase()}s`;
}
