/**
 * Every type the public API names is exported from 'redis-rtt' itself, so a TypeScript user can write it
 * down (a variable for what runDemo takes, what proxy.compensationUs is, a StatsSnapshot's parts) instead of
 * reaching for Parameters<...> or a deep dist/ path the package's exports refuse. The walk starts at each
 * export of src/index.ts and follows every type its declarations name (signatures, members, public class
 * members, heritage), transitively. It stops at INTERNAL: a building block's own parts, reachable only
 * through a member of an exported class that a caller reads but never builds. `typeof SCHEMA` (a zod
 * schema a type is inferred from) is not a name a user writes, so it is not followed.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { emitDeclarations } from '../helpers/declarations.js';


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

/** Names of types declared in src/, reachable from the public API and not exported, each with one user. */
function unexportedTypes(): Map<string, string> {
  const { program, entry, outDir: OUT, diagnostics } = emitDeclarations('public-types-dts');
  expect(diagnostics).toEqual([]);
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
