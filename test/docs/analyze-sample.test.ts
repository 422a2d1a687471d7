// docs/record-analyze.md shows a whole `redis-rtt analyze` report. Its section titles and table
// headers must be today's: each one the renderer prints (fixtures/record/n-plus-one.txt, the golden
// test/record/render.test.ts keeps current) is in the sample, figures aside.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** A line with its figures as # and its spacing as one space: what stays when the session changes. */
const skeleton = (line: string): string => line.replace(/\d+(\.\d+)?/g, '#').replace(/\s+/g, ' ').trim();

/**
 * The lines that say what a report is made of: section titles (not indented) and lines with no figure
 * (table headers, the opportunities' note). Headers of the --rtt columns (`saved @85ms`) follow the flag.
 */
function structure(report: string): string[] {
  return report
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.includes('@') && (!/^\s/.test(l) || !/\d/.test(l)))
    .map(skeleton);
}

describe("docs/record-analyze.md's analyze report", () => {
  const doc = read('docs/record-analyze.md');
  const sample = /```\n\$ redis-rtt analyze [^\n]*\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';

  it('reduces a report to its titles and headers', () => {
    const report = 'title: 12 things, 1.5 ms\n  col  a  b\n  1    2  3\n  a note\n  saved @85ms\n';
    expect(structure(report)).toEqual(['title: # things, # ms', 'col a b', 'a note']);
  });

  it('has every section title and table header the renderer prints today', () => {
    expect(sample).toMatch(/^redis-rtt analyze: /);
    const shown = new Set(sample.split('\n').map(skeleton));
    const golden = structure(read('fixtures/record/n-plus-one.txt'));
    expect(golden.length).toBeGreaterThan(10);
    expect(golden.filter((l) => !shown.has(l))).toEqual([]);
  });
});
