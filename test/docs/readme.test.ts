// The README and docs/ stay short, self-contained and honest: every relative link resolves, no
// reference to material a user does not have, and the README's test example is the code that runs.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const FILES = [README, ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => join(DOCS, f))];

const read = (file: string): string => readFileSync(file, 'utf8');
const rel = (file: string): string => file.slice(ROOT.length + 1);

/** The text outside fenced code blocks, line by line (links inside code are examples, not links). */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, (code) => (/\]\(/.test(code) ? '' : code));
  });
}

/** Terminal columns of a line: East Asian wide and full-width characters take two. */
function columns(line: string): number {
  let n = 0;
  for (const ch of line) {
    const c = ch.codePointAt(0)!;
    const wide =
      (c >= 0x1100 && c <= 0x115f) ||
      (c >= 0x2e80 && c <= 0xa4cf) ||
      (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) ||
      (c >= 0x20000 && c <= 0x3fffd);
    n += wide ? 2 : 1;
  }
  return n;
}

const WRAP_COLUMNS = 120;

/** Lines as a terminal 120 columns wide shows them: a longer line counts once per 120 columns begun. */
function wrappedLineCount(text: string): number {
  return text.split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(columns(line) / WRAP_COLUMNS)), 0);
}

/** Markdown link targets, [text](target) and ![alt](target), outside code. */
function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) targets.push(m[1]!);
  }
  return targets;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

describe('links in README.md and docs/*.md', () => {
  it('the anchor and link parsers read GitHub markdown as GitHub does', () => {
    const headings = '## `redis-rtt calibrate`\n## The link\n## The link\n# Precision, compensation';
    expect([...anchorsOf(headings)]).toEqual([
      'redis-rtt-calibrate',
      'the-link',
      'the-link-1',
      'precision-compensation',
    ]);
    const text = 'see [a](docs/a.md#x) and [b](https://x.org)\n```\n[c](nope.md)\n```\n`[d](nope.md)`';
    expect(linkTargets(text)).toEqual([
      'docs/a.md#x',
      'https://x.org',
    ]);
  });

  for (const file of FILES) {
    it(`every relative link in ${rel(file)} resolves, anchors included`, () => {
      const broken: string[] = [];
      for (const target of linkTargets(read(file))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const dest = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!existsSync(dest)) {
          broken.push(`${target}: no such file`);
          continue;
        }
        if (anchor === undefined) continue;
        if (statSync(dest).isDirectory() || !dest.endsWith('.md')) {
          broken.push(`${target}: an anchor into a file that is not markdown`);
        } else if (!anchorsOf(read(dest)).has(anchor)) {
          broken.push(`${target}: no heading with that anchor in ${rel(dest)}`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});

describe('line width in README.md and docs/*.md', () => {
  it('counts columns as a terminal does, and wrapped lines once per 120 columns begun', () => {
    expect(columns('redis-rtt')).toBe(9);
    expect(columns('从 500ms')).toBe(8);
    expect(wrappedLineCount(`a\n${'x'.repeat(120)}\n${'x'.repeat(121)}`)).toBe(4);
  });

  for (const file of FILES) {
    it(`${rel(file)} has no prose line over ${WRAP_COLUMNS} columns (code blocks excepted)`, () => {
      const long: string[] = [];
      let fenced = false;
      read(file)
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
          else if (!fenced && columns(line) > WRAP_COLUMNS) long.push(`line ${i + 1}: ${columns(line)} columns`);
        });
      expect(long).toEqual([]);
    });
  }
});

describe('README.md', () => {
  const readme = read(README);

  it('stays short: under 320 lines, counted as wrapped at 120 columns', () => {
    expect(wrappedLineCount(readme)).toBeLessThan(320);
  });

  it('points at nothing a user does not have: no ../shared, no seed files (README and docs/)', () => {
    for (const file of FILES) {
      const text = read(file);
      expect(text, rel(file)).not.toMatch(/\.\.\/shared|shared\/seeds|seeds\/|\bseed\s+\d{3}\b|\(seed\s+\d|\bseeds'/i);
    }
  });

  it("shows as its first code block exactly test/readme-example.test.ts's test, importing 'redis-rtt'", () => {
    const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    const testFile = read(join(ROOT, 'test/readme-example.test.ts')).replaceAll(
      "'../src/index.js'",
      "'redis-rtt'",
    );
    const from = testFile.indexOf("import { expect, test } from 'vitest';");
    const to = testFile.indexOf('\n});\n', from) + '\n});\n'.length;
    expect(from).toBeGreaterThanOrEqual(0);
    expect(block).toBe(testFile.slice(from, to));
  });

  it('keeps its demo excerpt within 100 columns', () => {
    const section = readme.slice(readme.indexOf('## What the demo shows'));
    const table = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(table).toMatch(/round trips/);
    for (const line of table.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });
});
