/**
 * Every type the public API names is exported from 'redis-rtt' itself, so a TypeScript user can write it
 * down (a variable for what runDemo takes, what proxy.compensationUs is, a StatsSnapshot's parts) instead of
 * reaching for Parameters<...> or a deep dist/ path the package's exports refuse. The walk starts at each
 * export of src/index.ts and follows every type its declarations name (signatures, members, public class
 * members, heritage), transitively. It stops at INTERNAL: a building block's own parts, reachable only
 * through a member of an exported class that a caller reads but never builds. `typeof SCHEMA` (a zod
 * schema a type is inferred from) is not a name a user writes, so it is not followed.
 */
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = resolve(ROOT, 'src') + '/';
/** Where the declarations would go: nothing is written there. */
const OUT = resolve(ROOT, 'public-types-dts') + '/';

const INTERNAL = new Set([
  // StatsCollector.openConnection() and .commands: the per-connection tap and its parts
  'Tap', 'TapOptions', 'ConnectionTap', 'FramedFeed', 'ChunkTimes', 'Correlator', 'CorrelatorOptions',
  'RequestLedger', 'RequestRing', 'PendingRequest', 'PendingBudget', 'RoundTrips', 'ReplyMatching',
  'ReplyModes', 'RequestModes', 'CommandTable', 'CommandEntry',
  // DelayLine's base class and its partition state
  'LossyLine', 'LossPath', 'PartitionFlight', 'PartitionWindow',
  // OpenLoopDispatcher.ledger
  'OpenLoopLedger', 'ServiceTimes',
  // ToxiproxyServer.proxies: the API server's own collection
  'ProxyCollection', 'ManagedProxy', 'ProxyJson',
]);

/** src/'s declarations, emitted in memory: the .d.ts files a user's compiler reads (inferred types written out). */
function declarationProgram(): { program: ts.Program; entry: string } {
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
  const emitted = ts.createProgram([resolve(SRC, 'index.ts')], options, host).emit(undefined, undefined, undefined, true);
  expect(emitted.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  const read = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = read;
  read.fileExists = (name) => files.has(name) || fileExists.call(read, name);
  read.readFile = (name) => files.get(name) ?? readFile.call(read, name);
  read.directoryExists = (dir) => dir.startsWith(OUT.slice(0, -1)) || ts.sys.directoryExists(dir);
  read.getSourceFile = (name, version, ...rest) => {
    const text = files.get(name);
    return text === undefined ? getSourceFile.call(read, name, version, ...rest) : ts.createSourceFile(name, text, version);
  };
  const entry = resolve(OUT, 'index.d.ts');
  return { program: ts.createProgram([entry], { ...options, declaration: false, emitDeclarationOnly: false, noEmit: true }, read), entry };
}

/** Names of types declared in src/, reachable from the public API and not exported, each with one user. */
function unexportedTypes(): Map<string, string> {
  const { program, entry } = declarationProgram();
  const checker = program.getTypeChecker();
  const resolveAlias = (s: ts.Symbol) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const exported = new Set(checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!).map(resolveAlias));
  const seen = new Set<ts.Symbol>();
  const missing = new Map<string, string>();

  const isPrivate = (m: ts.ClassElement) =>
    (m.name !== undefined && ts.isPrivateIdentifier(m.name)) ||
    (ts.getCombinedModifierFlags(m as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;

  function visitNode(node: ts.Node, user: string): void {
    if (ts.isTypeQueryNode(node)) return;
    const name = ts.isTypeReferenceNode(node) ? node.typeName : ts.isExpressionWithTypeArguments(node) ? node.expression : undefined;
    const symbol = name && checker.getSymbolAtLocation(name);
    if (symbol) visitSymbol(resolveAlias(symbol), user);
    ts.forEachChild(node, (child) => visitNode(child, user));
  }

  function visitSymbol(symbol: ts.Symbol, user: string): void {
    const declarations = symbol.declarations ?? [];
    if (seen.has(symbol) || !declarations.some((d) => d.getSourceFile().fileName.startsWith(OUT))) return;
    if (symbol.flags & ts.SymbolFlags.TypeParameter) return;
    seen.add(symbol);
    if (INTERNAL.has(symbol.name)) return;
    if (!exported.has(symbol)) missing.set(symbol.name, user);
    for (const d of declarations) {
      if (ts.isClassDeclaration(d)) {
        d.heritageClauses?.forEach((h) => visitNode(h, symbol.name));
        for (const m of d.members) if (!isPrivate(m)) visitNode(m, symbol.name);
      } else {
        visitNode(d, symbol.name);
      }
    }
  }

  for (const symbol of exported) visitSymbol(symbol, "src/index.ts");
  return missing;
}

describe('the public API names only exported types', () => {
  it('every type reachable from src/index.ts is exported there (or a building block\'s internal)', () => {
    const missing = [...unexportedTypes()].map(([name, user]) => `${name} (named by ${user})`).sort();
    expect(missing, 'export it from src/index.ts, or add it to INTERNAL with the member that reaches it').toEqual([]);
  });
});
