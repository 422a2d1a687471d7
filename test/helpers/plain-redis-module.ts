import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';

/**
 * src/redis (with src/resp's framer, which it reads replies with, and the errors, endpoint formatting and option checks it imports) as
 * plain JS in a new temporary folder, so a separate node process can use it and exit, or be
 * killed, without the test's cleanup. Type-stripping only: tsc's type check runs elsewhere.
 * Returns the folder; `redis/index.js` in it is the entry. The caller removes it.
 */
export function transpileRedisModule(prefix: string): string {
  const outDir = mkdtempSync(join(tmpdir(), prefix));
  const files = [...['src/redis', 'src/resp'].flatMap((d) => readdirSync(d).map((f) => join(d, f))), 'src/errors.ts', 'src/endpoint.ts', 'src/validation/known-keys.ts'].filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const js = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const dest = join(outDir, file.replace(/^src\//, '').replace(/\.ts$/, '.js'));
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, js);
  }
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}');
  return outDir;
}
