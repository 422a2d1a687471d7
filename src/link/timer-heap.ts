import type { Timer } from '../stage/types.js';

/** A timer, unarmed. A delay line keeps one and arms it again for each next chunk. */
export function newTimer(fire: () => void): Timer {
  return { dueNs: 0, index: -1, firedWindow: -1, fire };
}

/** A binary min-heap of timers on `dueNs`; each timer keeps its own position (`index`) for removal. */
export class TimerHeap {
  private readonly items: Timer[] = [];

  get length(): number {
    return this.items.length;
  }

  /** The earliest timer, if any. */
  get head(): Timer | undefined {
    return this.items[0];
  }

  push(t: Timer): void {
    t.index = this.items.length;
    this.items.push(t);
    this.up(t.index);
  }

  removeAt(i: number): void {
    const last = this.items.pop()!;
    if (i < this.items.length) {
      this.items[i] = last;
      last.index = i;
      this.down(i);
      this.up(last.index);
    }
  }

  private up(i: number): void {
    const h = this.items;
    const t = h[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p]!;
      if (parent.dueNs <= t.dueNs) break;
      h[i] = parent;
      parent.index = i;
      i = p;
    }
    h[i] = t;
    t.index = i;
  }

  private down(i: number): void {
    const h = this.items;
    const n = h.length;
    const t = h[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && h[r]!.dueNs < h[l]!.dueNs ? r : l;
      const child = h[c]!;
      if (child.dueNs >= t.dueNs) break;
      h[i] = child;
      child.index = i;
      i = c;
    }
    h[i] = t;
    t.index = i;
  }}
