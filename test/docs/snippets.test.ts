// Every TypeScript block in README.md and docs/*.md type-checks as a user's project would compile
// it, in the strictest settings a user may have (strict, exactOptionalPropertyTypes,
// noUncheckedIndexedAccess): a sample that does not compile is the first thing a reader tries.
// 'redis-rtt' is mapped to src/index.ts, so the check needs no build.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = join(ROOT, 'docs');
const FILES = ['README.md', ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

interface Snippet {
  /** The file name in the scratch project, e.g. docs_cluster_0.ts. */
  name: string;
  code: string;
}

/**
 * The ```ts blocks of a markdown file. A block that does not start with an import goes on from the
 * one before it (docs/architecture.md's second block uses the first one's `proxy`).
 */
function snippetsOf(file: string, text: string): Snippet[] {
  const out: Snippet[] = [];
  for (const m of text.matchAll(/^```ts\n([\s\S]*?)^```/gm)) {
    const code = m[1]!;
    const last = out.at(-1);
    if (last && !/^import /.test(code)) last.code += `\n${code}`;
    else out.push({ name: `${file.replace(/[/.]/g, '_')}_${out.length}.ts`, code });
  }
  return out;
}

function tsc(cwd: string): Promise<string> {
  const bin = join(ROOT, 'node_modules/typescript/bin/tsc');
  return new Promise((done) => {
    execFile(process.execPath, [bin, '-p', cwd], { cwd, maxBuffer: 16 * 1024 * 1024 }, (_err, stdout) => done(stdout));
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'redis-rtt-doc-snippets-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the TypeScript samples in README.md and docs/*.md', () => {
  it('splits blocks into samples, a block without imports continuing the one before', () => {
    const text = "```ts\nimport { a } from 'x';\n```\ntext\n```ts\na();\n```\n```ts\nimport { b } from 'y';\n```\n";
    expect(snippetsOf('docs/x.md', text)).toEqual([
      { name: 'docs_x_md_0.ts', code: "import { a } from 'x';\n\na();\n" },
      { name: 'docs_x_md_1.ts', code: "import { b } from 'y';\n" },
    ]);
  });

  it('type-check with strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess', async () => {
    const snippets = FILES.flatMap((f) => snippetsOf(f, readFileSync(join(ROOT, f), 'utf8')));
    // The README's, architecture.md's, cluster.md's and sentinel.md's at least: the walk must find them.
    expect(snippets.length).toBeGreaterThanOrEqual(5);
    for (const s of snippets) writeFileSync(join(scratch, s.name), `${s.code}\nexport {};\n`);
    symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'doc-snippets', private: true, type: 'module' }));
    const compilerOptions = {
      ...{ target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'ESNext.Disposable'], types: ['node'] },
      ...{ strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: true, noEmit: true },
      // src/ is checked whole for the samples' types (~30 s on 2 busy cores); what is kept between runs
      // makes the next one recheck only what changed (~10 s). A build info that cannot be read is rebuilt.
      incremental: true,
      tsBuildInfoFile: join(ROOT, 'node_modules/.cache/redis-rtt/doc-snippets.tsbuildinfo'),
      paths: { 'redis-rtt': [join(ROOT, 'src/index.ts')] },
    };
    writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: snippets.map((s) => s.name) }));
    const out = await tsc(scratch);
    // src/ itself compiles without exactOptionalPropertyTypes (tsconfig.json): only the samples' errors count.
    const lines = out.split('\n');
    // One that names no file (a bad tsconfig, a path not found) would hide every sample's.
    expect(lines.filter((l) => /^error TS/.test(l))).toEqual([]);
    expect(lines.filter((l) => snippets.some((s) => l.startsWith(`${s.name}(`)))).toEqual([]);
  }, 120_000);
});
