import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temp folder of numbered JSON files for `--config` tests: file(content) writes the next one and returns its path. */
export interface ConfigFiles {
  readonly dir: string;
  file(content: unknown): string;
  remove(): void;
}

export function configFiles(prefix: string): ConfigFiles {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  return {
    dir,
    file: (content) => {
      const path = join(dir, `c${++n}.json`);
      writeFileSync(path, JSON.stringify(content));
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
