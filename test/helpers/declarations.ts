/**
 * src/'s declarations, emitted in memory as `npm run build` would write them (inferred types written
 * out), and a program that loads them from `index.d.ts` the way a consumer's compiler does: only what
 * the entry imports, transitively. Nothing is written to `outDir`.
 */
import { resolve } from 'node:path';
import ts from 'typescript';

const SRC = resolve(import.meta.dirname, '../../src') + '/';

export interface Declarations {
  /** Loads the emitted index.d.ts and what it imports. */
  program: ts.Program;
  /** The emitted index.d.ts. */
  entry: string;
  /** Where the declarations would go, with a trailing slash: the emitted files' names start with it. */
  outDir: string;
  /** The emit's own errors, as text. */
  diagnostics: string[];
}

/** `outName`: a folder at the repository's root that names the caller (never created). */
export function emitDeclarations(outName: string): Declarations {
  const outDir = resolve(SRC, '..', outName) + '/';
  const options: ts.CompilerOptions = {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: SRC,
    outDir,
    skipLibCheck: true,
  };
  const files = new Map<string, string>();
  const host = ts.createCompilerHost(options);
  host.writeFile = (name, text) => files.set(name, text);
  const emitted = ts.createProgram([resolve(SRC, 'index.ts')], options, host).emit(undefined, undefined, undefined, true);
  const read = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = read;
  read.fileExists = (name) => files.has(name) || fileExists.call(read, name);
  read.readFile = (name) => files.get(name) ?? readFile.call(read, name);
  read.directoryExists = (dir) => dir.startsWith(outDir.slice(0, -1)) || ts.sys.directoryExists(dir);
  read.getSourceFile = (name, version, ...rest) => {
    const text = files.get(name);
    return text === undefined ? getSourceFile.call(read, name, version, ...rest) : ts.createSourceFile(name, text, version);
  };
  const entry = resolve(outDir, 'index.d.ts');
  return {
    program: ts.createProgram([entry], { ...options, declaration: false, emitDeclarationOnly: false, noEmit: true }, read),
    entry,
    outDir,
    diagnostics: emitted.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
  };
}
