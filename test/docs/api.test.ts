// docs/api.md says it lists every export and option (the README sends users there for them): each
// export of src/index.ts that exists at run time, and each key startProxy takes, is named in it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';
import type { ProxyHooks } from '../../src/index.js';
import { PROXY_OPTIONS } from '../../src/proxy/options-schema.js';
import { SENTINEL_OPTIONS } from '../../src/sentinel/options.js';

const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
const named = new Set([...doc.matchAll(/`([A-Za-z_$][\w$]*)(?:\(|`)/g)].map((m) => m[1]!));

// A Record over keyof ProxyHooks: a hook added there and not here fails to compile.
const HOOKS: Record<keyof ProxyHooks, true> = {
  onEvent: true,
  keyHash: true,
  onLinkChange: true,
  log: true,
  stages: true,
  scheduler: true,
  onNodeLinkChange: true,
};

/** Every name src/index.ts exports, values and types (`export { a, type B }`, `export type { C }`). */
function exportedNames(): Set<string> {
  const index = readFileSync(new URL('../../src/index.ts', import.meta.url), 'utf8');
  const names = new Set<string>();
  for (const m of index.matchAll(/export (?:type )?\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(',')) {
      const name = part.trim().replace(/^type\s+/, '').split(' as ').pop()!.trim();
      if (name) names.add(name);
    }
  }
  return names;
}

describe('docs/api.md', () => {
  it('names no type or class that is not exported (a user could not import it)', () => {
    const exported = exportedNames();
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    // HTTP headers the README names beside the API.
    const notTypes = new Set(['Host', 'Origin']);
    const capitalised = [...(doc + readme).matchAll(/`([A-Z][A-Za-z0-9]*)(?:\(|`|<)/g)].map((m) => m[1]!);
    expect([...new Set(capitalised)].filter((n) => !exported.has(n) && !notTypes.has(n))).toEqual([]);
  });


  it("names every value 'redis-rtt' exports", () => {
    expect(Object.keys(api).filter((k) => !named.has(k))).toEqual([]);
  });

  it("names every option of startProxy and startSentinelProxy, data and hooks", () => {
    const keys = [...Object.keys(PROXY_OPTIONS.shape), ...Object.keys(HOOKS), ...Object.keys(SENTINEL_OPTIONS)];
    expect(keys.filter((k) => !named.has(k))).toEqual([]);
  });
});
