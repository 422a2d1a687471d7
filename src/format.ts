/**
 * The one set of number and duration formatters (CLI, reports, record/analyze, /stats tables).
 * Locale-free on purpose: golden files and CSV must not change with the machine's LANG.
 *
 * One duration formatter per purpose, named for it (the name says the input unit, then the use):
 * - `fmtMs`, `fmtUs`: a table cell whose header carries the unit (no unit in the cell);
 * - `fmtMsProse`: a measured duration in a sentence, 3 significant digits ("18.2 ms", "1.3 s");
 * - `fmtMsTotal`: a time total in record/analyze output, decimals by magnitude ("0.42 ms", "4.213 s");
 * - `fmtUsLabel`: a chart axis or a compact label, 3 significant digits ("850us", "1.2ms");
 * - `fmtUsSetting`: a configured delay as a flag would spell it, exact, so it parses back ("1.25ms").
 * Sizes print K as 1000 (docs/cli.md, Units), as every size and rate the tool reads.
 * CSV and markdown round a figure as the table does, as a bare number (`fmtWhole`, `fmtFactorNumber`,
 * `fmtPctNumber`, and `fmtMs`, `fmtUs` as they are), so a spreadsheet still reads it.
 */

/** Milliseconds with precision that shrinks as the value grows: 0.123, 1.23, 12.3, 123, 1234. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  return fixedByMagnitude(ms, MS_DECIMALS);
}

const MS_DECIMALS: readonly Band[] = [
  [100, 0],
  [10, 1],
  [1, 2],
  [0, 3],
];
/** A factor or a percent: one decimal below 10, whole from 10. */
const TENTHS_BELOW_10: readonly Band[] = [
  [10, 0],
  [0, 1],
];

/** [at least this magnitude, this many decimals], largest magnitude first, the last band from 0. */
type Band = readonly [minAbs: number, decimals: number];

/**
 * `x` with the decimals of its magnitude's band, the band judged on the value as printed: 9.96 at
 * one decimal prints "10.0", which is in the whole-number band, so it prints "10". Rounding into a
 * band can only reach the next one up (its bound is a round number), so the loop ends.
 */
function fixedByMagnitude(x: number, bands: readonly Band[]): string {
  const decimalsFor = (v: number): number => (bands.find(([minAbs]) => Math.abs(v) >= minAbs) ?? bands[bands.length - 1]!)[1];
  let decimals = decimalsFor(x);
  let text = x.toFixed(decimals);
  for (let again = decimalsFor(Number(text)); again < decimals; again = decimalsFor(Number(text))) {
    decimals = again;
    text = x.toFixed(decimals);
  }
  return text;
}

/** A unit and where it starts: values from `minAbs` on print divided by `divisor`, then `suffix`. */
type UnitBand = readonly [minAbs: number, divisor: number, suffix: string];

/**
 * `n` in the largest of `bands` (largest first, the last from 0) that it reaches as printed: a
 * value that rounds up to the next band's start prints in that band (9999.6 is 10k, not 10000).
 */
function fmtInBands(n: number, bands: readonly UnitBand[], print: (scaled: number, band: number) => string): string {
  let band = bands.findIndex(([minAbs]) => Math.abs(n) >= minAbs);
  let text = print(n / bands[band]![1], band);
  while (band > 0 && Math.abs(Number(text)) * bands[band]![1] >= bands[band - 1]![0]) {
    band--;
    text = print(n / bands[band]![1], band);
  }
  return `${text}${bands[band]![2]}`;
}

const PROSE_MS_BANDS: readonly UnitBand[] = [
  [1000, 1000, ' s'],
  [0, 1, ' ms'],
];

/** A measured duration in a sentence: "1.25 s" from a second, else "12.3 ms" (3 significant digits). */
export function fmtMsProse(ms: number): string {
  return fmtInBands(ms, PROSE_MS_BANDS, (v, band) => (band === 0 ? sig3(v) : fmtMs(v)));
}

const LABEL_US_BANDS: readonly UnitBand[] = [
  [1_000_000, 1_000_000, 's'],
  [1000, 1000, 'ms'],
  [0, 1, 'us'],
];

/** Microseconds for chart axes and compact labels: 850us, 1.2ms, 85ms, 1.5s (3 significant digits). */
export function fmtUsLabel(us: number): string {
  return fmtInBands(us, LABEL_US_BANDS, sig3);
}

/** Integer microseconds as a plain integer (table cells with a "us" header). */
export function fmtUs(us: number): string {
  return fmtWhole(us);
}

/** A count or a size rounded to a whole number, no unit: 834, 57900. */
export function fmtWhole(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toString() : '-';
}

/** Counts: 834, 7912, 12.3k, 210k, 1.23M. */
export function fmtCount(n: number): string {
  return Number.isFinite(n) ? fmtInBands(n, COUNT_BANDS, wholeBelowK) : '-';
}

const COUNT_BANDS: readonly UnitBand[] = [
  [1e9, 1e9, 'G'],
  [1e6, 1e6, 'M'],
  [1e4, 1e3, 'k'],
  [0, 1, ''],
];
const BYTE_BANDS: readonly UnitBand[] = [
  [1e9, 1e9, 'G'],
  [1e6, 1e6, 'M'],
  [1e3, 1e3, 'K'],
  [0, 1, ''],
];
/** The last band (no unit) whole, the others to 3 significant digits. */
const wholeBelowK = (v: number, band: number): string => (band === 3 ? Math.round(v).toString() : sig3(v));

/** Bytes with decimal units (K = 1000), so bytes / N per command stays mental arithmetic. */
export function fmtBytes(n: number): string {
  return Number.isFinite(n) ? fmtInBands(n, BYTE_BANDS, wholeBelowK) : '-';
}

/** Speedup factor: 1.0x, 9.8x, 83x, 1234x; 9.96 is 10x (the band is judged after rounding). */
export function fmtFactor(x: number): string {
  return Number.isFinite(x) ? `${fmtFactorNumber(x)}x` : '-';
}

/** The number fmtFactor prints, without the x: 1.0, 9.8, 83. */
export function fmtFactorNumber(x: number): string {
  if (!Number.isFinite(x)) return '-';
  return fixedByMagnitude(x, TENTHS_BELOW_10);
}

/** Signed percent for errors: +3.1%, -12%. */
export function fmtSignedPct(pct: number): string {
  if (!Number.isFinite(pct)) return '-';
  const text = fmtPctNumber(pct);
  return `${pct > 0 && text !== '0.0' ? '+' : ''}${text}%`;
}

/** The number fmtSignedPct prints, without the % and the + sign: 3.1, -12, 0.0. */
export function fmtPctNumber(pct: number): string {
  if (!Number.isFinite(pct)) return '-';
  const body = fixedByMagnitude(Math.abs(pct), TENTHS_BELOW_10);
  return pct < 0 && body !== '0.0' ? `-${body}` : body;
}

/** Three significant digits without trailing zeros: 1.20 -> "1.2", 85.0 -> "85", 1234 -> "1234". */
export function sig3(n: number): string {
  if (n === 0 || !Number.isFinite(n)) return String(n);
  const a = Math.abs(n);
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return trimZeros(n.toFixed(1));
  if (a >= 1) return trimZeros(n.toFixed(2));
  return trimZeros(n.toPrecision(3));
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** "-" for null/undefined, else the formatter's output. */
export function orDash<T>(v: T | null | undefined, f: (v: T) => string): string {
  return v === null || v === undefined ? '-' : f(v);
}

/** A configured delay as a flag spells it, exact to the microsecond: 85000 -> "85ms", 200 -> "200us", 1250 -> "1.25ms", 0 -> "0". */
export function fmtUsSetting(us: number): string {
  if (us === 0) return '0';
  if (us >= 1_000_000 && us % 1000 === 0) return `${trim(us / 1_000_000)}s`;
  if (us >= 1000) return `${trim(us / 1000)}ms`;
  return `${trim(us)}us`;
}

function trim(n: number): string {
  return String(Number(n.toFixed(3)));
}

/** A time total in record/analyze output, decimals by magnitude: "0.42 ms", "215.3 ms", "4.213 s", "18.49 s". */
export function fmtMsTotal(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(3)} s`;
  if (ms >= 100) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/** What a stopped run says it was stopped by, from the abort's reason (the CLI aborts with the signal's name). */
const STOPPED_BY: Readonly<Record<string, string>> = { SIGINT: ' (Ctrl-C)', SIGTERM: ' (SIGTERM)', SIGHUP: ' (SIGHUP)' };

/** "interrupted (Ctrl-C)", "interrupted (SIGTERM)", "interrupted (SIGHUP)", or "interrupted" for any other abort (a library caller's own). */
export function interruptedWords(reason: unknown): string {
  return `interrupted${typeof reason === 'string' ? (STOPPED_BY[reason] ?? '') : ''}`;
}
