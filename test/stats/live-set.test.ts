import { describe, expect, it } from 'vitest';
import { LiveSet } from '../../src/stats/live-set.js';

interface Item {
  name: string;
  liveIndex: number;
}
const item = (name: string): Item => ({ name, liveIndex: -1 });

describe('LiveSet', () => {
  it('adds, deletes from anywhere and counts, keeping each position on its item', () => {
    const set = new LiveSet<Item>();
    const [a, b, c, d] = [item('a'), item('b'), item('c'), item('d')];
    for (const x of [a, b, c, d]) set.add(x);
    set.add(b); // already in: no second entry
    expect(set.size).toBe(4);
    expect(set.delete(b)).toBe(true);
    expect(b.liveIndex).toBe(-1);
    expect(set.delete(b)).toBe(false);
    expect([...set].map((x) => x.name).sort()).toEqual(['a', 'c', 'd']);
    // The last item took the deleted one's place, and knows it.
    expect(d.liveIndex).toBe(1);
    expect(set.delete(d)).toBe(true);
    expect(set.delete(a)).toBe(true);
    expect([...set].map((x) => x.name)).toEqual(['c']);
    expect(c.liveIndex).toBe(0);
    expect(set.size).toBe(1);
  });

  it('will not delete an item that holds a position in another set', () => {
    const one = new LiveSet<Item>();
    const other = new LiveSet<Item>();
    const a = item('a');
    const b = item('b');
    one.add(a);
    other.add(b);
    expect(other.delete(a)).toBe(false);
    expect(other.size).toBe(1);
    expect(one.size).toBe(1);
  });

  it('iterates the items as they were when the loop began, whatever its body deletes or adds', () => {
    const set = new LiveSet<Item>();
    const items = ['a', 'b', 'c'].map(item);
    for (const x of items) set.add(x);
    const seen: string[] = [];
    for (const x of set) {
      seen.push(x.name);
      for (const y of items) set.delete(y);
      set.add(item('late'));
    }
    expect(seen).toEqual(['a', 'b', 'c']);
    expect([...set].map((x) => x.name)).toEqual(['late', 'late', 'late']);
  });
});
