/**
 * The declarations a consumer's compiler loads from 'redis-rtt' use no syntax that needs a newer
 * TypeScript than the package's dependencies do (zod's NoInfer: 5.4). TypeScript 5.7 made the typed
 * arrays and @types/node's Buffer generic, and writes an inferred `new Float64Array(n)` out as
 * `Float64Array<ArrayBuffer>`: dist/link/delay-line.d.ts had one, so the README's example failed to
 * compile on TypeScript 5.4 to 5.6 without skipLibCheck ("Type 'Float64Array' is not generic").
 * The declarations are emitted in memory (test/helpers/declarations.ts).
 */
import { describe, expect, it } from 'vitest';
import { emitDeclarations } from '../helpers/declarations.js';

/** A typed array or Buffer with a type argument: TypeScript 5.7's lib and @types/node's newer Buffer only. */
const GENERIC_BYTES = /\b(?:(?:Big)?(?:Int|Uint|Float)(?:8|16|32|64)(?:Clamped)?Array|Buffer)</;

/** Each line of a loaded declaration file that names a generic typed array, as `file:line: text`. */
function genericByteTypes(): string[] {
  const { program, outDir: OUT } = emitDeclarations('older-typescript-dts');
  const loaded = program.getSourceFiles();
  const found: string[] = [];
  for (const f of loaded) {
    if (!f.fileName.startsWith(OUT)) continue;
    f.text.split('\n').forEach((line, i) => {
      if (GENERIC_BYTES.test(line)) found.push(`${f.fileName.slice(OUT.length)}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(loaded.filter((f) => f.fileName.startsWith(OUT)).length, 'the walk reached the declarations').toBeGreaterThan(50);
  return found;
}

describe("the package's declarations", () => {
  it('name no generic typed array or Buffer (TypeScript 5.7+ only): an inferred one is written out with its argument', () => {
    expect(genericByteTypes(), 'annotate the member or function with the plain type (Float64Array, Buffer)').toEqual([]);
  });
});
