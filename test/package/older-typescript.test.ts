/**
 * The declarations a consumer's compiler loads from 'redis-rtt' use no syntax that needs a newer
 * TypeScript than the package's dependencies do (zod's NoInfer: 5.4). TypeScript 5.7 made the typed
 * arrays and @types/node's Buffer generic, and writes an inferred `new Float64Array(n)` out as
 * `Float64Array<ArrayBuffer>`: dist/link/delay-line.d.ts had one, so the README's example failed to
 * compile on TypeScript 5.4 to 5.6 without skipLibCheck ("Type 'Float64Array' is not generic").
 * The declarations are emitted in memory, as test/package/public-types.test.ts does.
 */
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src') + '/';
/** Where the declarations would go: nothing is written there. */
const OUT = resolve(import.meta.dirname, '../../older-typescript-dts') + '/';
/** A typed array or Buffer with a type argument: TypeScript 5.7's lib and @types/node's newer Buffer only. */
const GENERIC_BYTES = /\b(?:(?:Big)?(?:Int|Uint|Float)(?:8|16|32|64)(?:Clamped)?Array|Buffer)</;

/** Each line of a loaded declaration file that names a generic typed array, as `file:line: text`. */
function genericByteTypes(): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: SRC,
    outDir: OUT,
    skipLibCheck: true,
  };
  const files = new Map<string, string>();
  const host = ts.createCompilerHost(options);
  host.writeFile = (name, text) => files.set(name, text);
  ts.createProgram([resolve(SRC, 'index.ts')], options, host).emit(undefined, undefined, undefined, true);
  // What a consumer's compiler loads: index.d.ts and what it imports, transitively (not every file of dist/).
  const read = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = read;
  read.fileExists = (name) => files.has(name) || fileExists.call(read, name);
  read.readFile = (name) => files.get(name) ?? readFile.call(read, name);
  read.directoryExists = (dir) => dir.startsWith(OUT.slice(0, -1)) || ts.sys.directoryExists(dir);
  read.getSourceFile = (name, version, ...rest) => {
    const text = files.get(name);
    return text === undefined ? getSourceFile.call(read, name, version, ...rest) : ts.createSourceFile(name, text, version);
  };
  const loaded = ts.createProgram([resolve(OUT, 'index.d.ts')], { ...options, noEmit: true }, read).getSourceFiles();
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
