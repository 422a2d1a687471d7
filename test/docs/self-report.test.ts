// docs/self-report.md says what each leaf of /stats `self` holds: every key of SelfQuantiles, and
// every field of SelfReport, is named in its "/stats → self" section. Records over keyof: a key
// added to the types and not here fails to compile.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SelfQuantiles, SelfReport } from '../../src/stats/self-report.js';

const doc = readFileSync(new URL('../../docs/self-report.md', import.meta.url), 'utf8');
const from = doc.indexOf('\n## `/stats` → `self`\n');
const section = doc.slice(from, doc.indexOf('\n## ', from + 1));

const LEAF: Record<keyof SelfQuantiles, true> = { p50: true, p90: true, p99: true, max: true, count: true, mean: true, sum: true };
const REPORT: Record<keyof SelfReport, true> = {
  ...{ lateUs: true, lateUsByDirection: true, addedUs: true, roundTripAddedUs: true },
  ...{ arrivalLagUs: true, eventLoopDelayUs: true, gcPauseUs: true },
};

describe('docs/self-report.md, /stats self', () => {
  it('lists every key of a leaf in the sentence that says what a leaf is', () => {
    const leaf = /Every leaf is `\{([^}]*)\}`/.exec(section)?.[1]?.split(',').map((k) => k.trim());
    expect(leaf?.sort()).toEqual(Object.keys(LEAF).sort());
  });

  it('names every field of the report', () => {
    expect(section.length).toBeGreaterThan(500);
    expect(Object.keys(REPORT).filter((k) => !section.includes(`\`${k}`))).toEqual([]);
  });
});
