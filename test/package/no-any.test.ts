/**
 * No `any` reaches a user through the public API: every export of src/index.ts, its members,
 * parameters, return types and type arguments, walked transitively through the types src/ declares.
 * An `any` there switches off a consumer's checks without a word (TOXIC_TYPES.get('latency')!.create
 * took anything while ToxicDefinition was `ByteToxicDefinition<any> | ...`). A type argument of a
 * type from elsewhere is followed but not itself judged: lib's own defaults (Iterable<T, TReturn =
 * any>) are TypeScript's, and an `any` written in src/ is caught by eslint's no-explicit-any.
 */
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src') + '/';
/** Deep enough for every public type's parts; a cycle stops at the first type seen again. */
const MAX_DEPTH = 12;

function anyPaths(): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  };
  const entry = resolve(SRC, 'index.ts');
  const program = ts.createProgram([entry], options);
  const checker = program.getTypeChecker();
  const ours = (t: ts.Type): boolean => {
    const d = (t.aliasSymbol ?? t.getSymbol())?.declarations?.[0];
    return d !== undefined && d.getSourceFile().fileName.startsWith(SRC);
  };
  const hidden = (d: ts.Declaration): boolean =>
    ((ts.isPropertyDeclaration(d) || ts.isMethodDeclaration(d) || ts.isGetAccessor(d)) && d.name !== undefined && ts.isPrivateIdentifier(d.name)) ||
    (ts.getCombinedModifierFlags(d) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;
  const seen = new Set<ts.Type>();
  const found: string[] = [];

  function walk(t: ts.Type, path: string, depth: number, judged: boolean): void {
    if (t.flags & ts.TypeFlags.Any) {
      if (judged) found.push(path);
      return;
    }
    if (depth > MAX_DEPTH || seen.has(t)) return;
    seen.add(t);
    if (t.isUnionOrIntersection()) return t.types.forEach((u) => walk(u, path, depth + 1, true));
    if (!(t.flags & ts.TypeFlags.Object)) return;
    const flags = (t as ts.ObjectType).objectFlags;
    const own = ours(t);
    const args = flags & ts.ObjectFlags.Reference ? checker.getTypeArguments(t as ts.TypeReference) : [];
    args.forEach((a, i) => walk(a, `${path}<${i}>`, depth + 1, own));
    // A mapped type (Omit<...> of a zod inference) is src/'s keys under lib's name: walked too.
    if (!own && !(flags & ts.ObjectFlags.Mapped)) return;
    for (const p of checker.getPropertiesOfType(t)) {
      const d = p.valueDeclaration ?? p.declarations?.[0];
      if (!d || hidden(d)) continue;
      walk(checker.getTypeOfSymbolAtLocation(p, d), `${path}.${p.name}`, depth + 1, true);
    }
    for (const kind of [ts.SignatureKind.Call, ts.SignatureKind.Construct]) {
      for (const s of checker.getSignaturesOfType(t, kind)) {
        for (const p of s.getParameters()) walk(checker.getTypeOfSymbol(p), `${path}(${p.name})`, depth + 1, true);
        walk(s.getReturnType(), `${path}()`, depth + 1, true);
      }
    }
    for (const info of checker.getIndexInfosOfType(t)) walk(info.type, `${path}[]`, depth + 1, true);
  }

  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  for (const e of checker.getExportsOfModule(module)) {
    const s = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
    if (s.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class)) walk(checker.getDeclaredTypeOfSymbol(s), e.name, 0, true);
    if (s.flags & ts.SymbolFlags.Value) walk(checker.getTypeOfSymbol(s), `${e.name} (value)`, 0, true);
  }
  return found;
}

describe('the public API', () => {
  it('lets no `any` through to a caller', () => {
    expect(anyPaths(), 'type it (unknown, or the real type); the path is the export, then .member, (param), () for a return, <n> for a type argument').toEqual([]);
  });
});
