import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One import (static, dynamic or re-export) of one src/ file: `to` is a package name or a resolved src/ path. */
export interface ImportEdge {
  from: string;
  to: string;
  external: boolean;
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

export function listTs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listTs(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every import in the .ts files under `root` (paths relative to `root`, with / separators). */
export function readImports(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of listTs(root)) {
    const from = relative(root, file).split(sep).join('/');
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT_RE)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      if (spec.startsWith('node:')) continue;
      const external = !spec.startsWith('.');
      const to = external
        ? packageName(spec)
        : relative(root, resolve(dirname(file), spec)).split(sep).join('/').replace(/\.js$/, '.ts');
      edges.push({ from, to, external });
    }
  }
  return edges;
}

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The folder of a src/-relative path: `proxy/index.ts` -> `proxy`, `errors.ts` -> `.` (the root files). */
export function folderOf(path: string): string {
  const i = path.indexOf('/');
  return i < 0 ? '.' : path.slice(0, i);
}

/** Cycles in the folder graph, each as a path `a -> b -> ... -> a` (one per back edge the depth-first walk meets). */
export function folderCycles(edges: ImportEdge[]): string[] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.external) continue;
    const a = folderOf(e.from);
    const b = folderOf(e.to);
    if (a === b || b === '.') continue; // the root files (errors, clock, units) are leaves everyone may use
    if (!graph.has(a)) graph.set(a, new Set());
    graph.get(a)!.add(b);
  }
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (node: string, path: string[]): void => {
    const at = path.indexOf(node);
    if (at >= 0) {
      cycles.push([...path.slice(at), node].join(' -> '));
      return;
    }
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return cycles;
}
