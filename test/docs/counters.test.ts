// docs/counters.md lists every counter: each key of /stats `totals` (Counters) is named in its
// "The counters" section. A Record over keyof: a counter added to the type and not here fails to
// compile, and one the section leaves out fails the test.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Counters } from '../../src/tap/counter-types.js';

const doc = readFileSync(new URL('../../docs/counters.md', import.meta.url), 'utf8');
const from = doc.indexOf('\n## The counters\n');
const section = doc.slice(from, doc.indexOf('\n## ', from + 1));

const COUNTERS: Record<keyof Counters, true> = {
  ...{ commands: true, replies: true, pushes: true, errorReplies: true, errorsByPrefix: true, roundTrips: true },
  ...{ flights: true, maxDepth: true, depthHistogram: true, blockingCommands: true, bytesUp: true, bytesDown: true },
  ...{ chunksUp: true, chunksDown: true, unparsedBytes: true },
};

describe('docs/counters.md, the counters', () => {
  it('names every key of /stats totals', () => {
    expect(section.length).toBeGreaterThan(500);
    expect(Object.keys(COUNTERS).filter((k) => !section.includes(`\`${k}\``))).toEqual([]);
  });
});
