import { describe, expect, it } from 'vitest';
import { CommandTable, OTHER_COMMAND } from '../../src/tap/command-table.js';
import { addCounters, compareDepthBuckets, copyCounters, depthBucket, newCounters, recordDepth } from '../../src/tap/counters.js';

describe('counters', () => {
  it('buckets depths by powers of two', () => {
    const cases: [number, string][] = [[0, '1'], [1, '1'], [2, '2-3'], [3, '2-3'], [4, '4-7'], [7, '4-7'], [8, '8-15'], [100, '64-127'], [1024, '1024-2047'], [2 ** 40, '2147483648-4294967295']];
    for (const [depth, bucket] of cases) expect(depthBucket(depth), `depth ${depth}`).toBe(bucket);
    expect(['8-15', '1', '1024-2047', '2-3'].sort(compareDepthBuckets)).toEqual(['1', '2-3', '8-15', '1024-2047']);
  });

  it('adds counts, merges the maps and keeps the larger maxDepth', () => {
    const a = newCounters();
    const b = newCounters();
    a.commands = 5;
    a.maxDepth = 8;
    a.errorsByPrefix = { ERR: 1 };
    recordDepth(a.depthHistogram, 1);
    b.commands = 7;
    b.maxDepth = 3;
    b.errorsByPrefix = { ERR: 2, MOVED: 1 };
    recordDepth(b.depthHistogram, 1);
    recordDepth(b.depthHistogram, 5);
    b.bytesUp = 10;
    const sum = addCounters(copyCounters(a), b);
    expect(sum).toMatchObject({ commands: 12, maxDepth: 8, bytesUp: 10 });
    expect(sum.errorsByPrefix).toEqual({ ERR: 3, MOVED: 1 });
    expect(sum.depthHistogram).toEqual({ '1': 2, '4-7': 1 });
    expect(a.errorsByPrefix).toEqual({ ERR: 1 }); // the copy did not share maps
  });
});

describe('CommandTable', () => {
  it('caps the names it keeps and folds the rest into OTHER, blocking ones apart', () => {
    const t = new CommandTable(3);
    for (const n of ['A', 'B', 'C', 'D', 'E']) t.entry(n, false).count++;
    t.entry('BX', true).count++;
    const snap = t.snapshot();
    expect(Object.keys(snap)).toEqual([OTHER_COMMAND, 'A', 'B', 'C', 'OTHER BLOCKING']);
    expect(snap[OTHER_COMMAND]?.count).toBe(2);
    expect(snap['OTHER BLOCKING']?.blocking).toBe(true);
  });

  it('reset zeroes entries and hides them from the snapshot until used again', () => {
    const t = new CommandTable();
    const e = t.entry('GET', false);
    e.count = 3;
    e.recordLatency(5_000, 9_000);
    expect(t.snapshot()['GET']?.serverUs).toMatchObject({ count: 1, p50: 5 });
    t.reset();
    expect(t.snapshot()).toEqual({});
    expect(t.entry('GET', false)).toBe(e);
  });
});
