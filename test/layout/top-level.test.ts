import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository's top level is the layout CONTRIBUTING describes; a scratch file committed there by accident
 * (a run's JSON, a captured stderr) fails here instead of shipping in every clone.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ALLOWED = new Set([
  '.ci', '.dependency-cruiser.js', '.gitignore', 'LICENSE', 'README.md', 'bin', 'docs', 'eslint.config.js', 'fixtures',
  'knip.config.js', 'lab', 'native', 'package-lock.json', 'package.json', 'scripts', 'src', 'test', 'tsconfig.build.json',
  'tsconfig.json', 'vitest.config.ts', 'vitest.node-lines.config.ts',
]);

describe('repository layout', () => {
  it('tracks nothing at the top level beyond the known files and folders', () => {
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
    const topLevel = [...new Set(tracked.map((path) => path.split('/')[0]!))];
    expect(topLevel.filter((name) => !ALLOWED.has(name))).toEqual([]);
    expect(topLevel).toContain('LICENSE');
  });
});
