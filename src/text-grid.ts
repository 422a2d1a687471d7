/**
 * The one table renderer (bench and calibrate tables, analyze, the proxy's exit summary): lays out
 * a monospace grid. Widths are measured on plain text and colour is wrapped around the padded cell
 * afterwards, so ANSI codes never shift a column.
 */

export type Align = 'left' | 'right';
export type Tone = 'plain' | 'bold' | 'dim' | 'fail';

export interface GridRow {
  cells: string[];
  tone?: Tone;
  /** Per-cell tone, overriding the row's. */
  cellTones?: Array<Tone | undefined>;
}

/** A horizontal rule across the whole grid. */
export const RULE: GridRow = { cells: [], tone: 'dim' };

const ANSI: Record<Tone, [string, string]> = {
  plain: ['', ''],
  bold: ['\x1b[1m', '\x1b[22m'],
  dim: ['\x1b[2m', '\x1b[22m'],
  fail: ['\x1b[31m', '\x1b[39m'],
};

/**
 * Whether a table written to `stream` gets colour: a terminal, unless NO_COLOR is set to anything
 * but the empty string (no-color.org), the same for every command.
 */
export function colorFor(stream: { isTTY?: boolean }): boolean {
  return stream.isTTY === true && !process.env.NO_COLOR;
}

export function paint(text: string, tone: Tone, color: boolean): string {
  if (!color || tone === 'plain' || text === '') return text;
  const [on, off] = ANSI[tone];
  return `${on}${text}${off}`;
}

/**
 * Terminal-safe text: control characters (line breaks, ESC of a stray ANSI sequence in a link
 * name) become spaces, so data can neither break the grid nor drive the terminal.
 */
export function oneLine(s: string): string {
  // eslint-disable-next-line no-control-regex -- replacing control characters is the point
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** Visible width: code points, which is what a terminal shows for our ASCII-and-Latin text. */
export function textWidth(s: string): number {
  return [...s].length;
}

export function renderGrid(rows: GridRow[], align: Align[], opts: { color?: boolean; gap?: string } = {}): string[] {
  const color = opts.color ?? false;
  const gap = opts.gap ?? '  ';
  const widths = align.map((_, c) => Math.max(0, ...rows.map((r) => textWidth(r.cells[c] ?? ''))));
  const total = widths.reduce((a, w) => a + w, 0) + gap.length * Math.max(0, widths.length - 1);
  return rows.map((row) => {
    if (row === RULE || row.cells.length === 0) return paint('-'.repeat(total), 'dim', color);
    const texts = widths.map((_, c) => oneLine(row.cells[c] ?? ''));
    let last = texts.length - 1;
    while (last > 0 && texts[last] === '') last -= 1;
    const padded = texts.slice(0, last + 1).map((text, c) => {
      const pad = ' '.repeat(Math.max(0, widths[c]! - textWidth(text)));
      return align[c] === 'right' ? pad + text : text + pad;
    });
    const tones = padded.map((_, c) => row.cellTones?.[c] ?? row.tone ?? 'plain');
    // Neighbouring cells of one tone share one colour span: short output, and no colour codes
    // around blank cells.
    const spans: string[] = [];
    for (let i = 0; i < padded.length; ) {
      let j = i;
      while (j + 1 < padded.length && tones[j + 1] === tones[i]) j += 1;
      const text = padded.slice(i, j + 1).join(gap);
      spans.push(paint(j === padded.length - 1 ? text.trimEnd() : text, tones[i]!, color));
      i = j + 1;
    }
    return spans.join(gap).trimEnd();
  });
}
