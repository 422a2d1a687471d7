import { Byte } from './bytes.js';

/** `open()` children count of a streamed aggregate (`*?`): it lasts until its `.` end marker. */
export const STREAMED = -1;

/**
 * The reply aggregates still open, outermost first, as an explicit stack (parallel arrays, no
 * recursion), so nesting depth is bounded by memory only. Attributes are never counted as
 * elements: the framer simply does not report them here.
 */
export class AggregateStack {
  depth = 0;
  private readonly remaining: number[] = [];
  private readonly types: number[] = [];
  private readonly counts: number[] = [];

  /** Opens an aggregate of type `t` expecting `children` values (STREAMED: until `.`). */
  open(t: number, children: number): void {
    const d = this.depth;
    this.remaining[d] = children;
    this.types[d] = t;
    this.counts[d] = 0;
    this.depth = d + 1;
  }

  /** True when the next value at depth 1 is element 0 of a top-level `*` or `>`. */
  nextIsFirstOfTop(): boolean {
    const top = this.types[0];
    return this.depth === 1 && this.counts[0] === 0 && (top === Byte.Star || top === Byte.Push);
  }

  /** Elements counted so far in the top-level aggregate. */
  get topCount(): number {
    return this.counts[0]!;
  }

  get innermostIsStreamed(): boolean {
    return this.depth > 0 && this.remaining[this.depth - 1] === STREAMED;
  }

  /**
   * A value ended inside the innermost aggregate: counts it. Returns the type of the aggregate
   * that it completes (now closed), or 0 when that aggregate wants more.
   */
  elementDone(): number {
    const i = this.depth - 1;
    this.counts[i]!++;
    const left = this.remaining[i]!;
    if (left === STREAMED) return 0;
    if (left > 1) {
      this.remaining[i] = left - 1;
      return 0;
    }
    this.depth = i;
    return this.types[i]!;
  }

  /** Closes the innermost (streamed) aggregate at its `.`; returns its type. */
  closeStreamed(): number {
    this.depth--;
    return this.types[this.depth]!;
  }
}
