import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { folderCycles, folderOf, readImports } from './import-graph.js';

const SRC = new URL('../../src/', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const edges = readImports(SRC);

describe('src/ imports', () => {
  it('finds the imports it checks', () => {
    expect(edges.filter((e) => !e.external).length).toBeGreaterThan(300);
    expect(edges.some((e) => e.from === 'index.ts' && e.to === 'proxy/index.ts')).toBe(true);
    expect(edges.some((e) => e.from === 'stats/types.ts' && e.to === 'tap/counter-types.ts')).toBe(true); // import type
    expect(edges.some((e) => e.from === 'proxy/index.ts' && e.to === 'commander')).toBe(false);
  });

  it('go one way between folders: no cycle', () => {
    expect(folderCycles(edges)).toEqual([]);
  });

  it('reports a cycle when there is one', () => {
    const e = (from: string, to: string) => ({ from, to, external: false });
    expect(folderCycles([e('a/x.ts', 'b/y.ts'), e('b/y.ts', 'c/z.ts'), e('c/z.ts', 'a/w.ts')])).toEqual(['a -> b -> c -> a']);
    expect(folderCycles([e('a/x.ts', 'errors.ts'), e('a/x.ts', 'a/y.ts')])).toEqual([]);
  });

  it('never reach outside src/ (lab/, test/)', () => {
    expect(edges.filter((e) => !e.external && e.to.startsWith('..'))).toEqual([]);
    expect(folderOf('proxy/index.ts')).toBe('proxy');
  });

  it('use runtime dependencies only, never a devDependency', () => {
    const external = [...new Set(edges.filter((e) => e.external).map((e) => e.to))].sort();
    const runtime = Object.keys(pkg.dependencies);
    expect(external.filter((name) => !runtime.includes(name))).toEqual([]);
    expect(external.filter((name) => name in pkg.devDependencies)).toEqual([]);
  });
});
