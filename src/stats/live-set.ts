/** What a LiveSet holds: each item keeps its own position in the set (-1 while in none). */
export interface LiveSetItem {
  liveIndex: number;
}

/**
 * The open connections (or their taps): add and delete in constant time, iterate. An array, with
 * each item's position on the item, instead of a JS Set. A Set that grows and shrinks as
 * connections come and go rehashes, and V8 leaves each table it leaves behind pointing to its
 * successor and to the entries it held; once such a table is in the old generation, scavenges keep
 * alive everything the chain reaches, closed connections included, until a full collection
 * (docs/precision.md, "Closed connections and the scavenger"). An item is in at most one LiveSet.
 */
export class LiveSet<T extends LiveSetItem> implements Iterable<T> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  add(item: T): void {
    if (item.liveIndex >= 0) return;
    item.liveIndex = this.items.length;
    this.items.push(item);
  }

  /** False when the item was not in the set. */
  delete(item: T): boolean {
    const i = item.liveIndex;
    if (i < 0 || this.items[i] !== item) return false;
    const last = this.items.pop()!;
    if (last !== item) {
      this.items[i] = last;
      last.liveIndex = i;
    }
    item.liveIndex = -1;
    return true;
  }

  /** The items as they were when the iteration began (the loop's body may add or delete). */
  [Symbol.iterator](): Iterator<T> {
    return this.items.slice()[Symbol.iterator]();
  }
}
