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

describe('docs/api.md', () => {
  it("names every value 'redis-rtt' exports", () => {
    expect(Object.keys(api).filter((k) => !named.has(k))).toEqual([]);
  });

  it("names every option of startProxy and startSentinelProxy, data and hooks", () => {
    const keys = [...Object.keys(PROXY_OPTIONS.shape), ...Object.keys(HOOKS), ...Object.keys(SENTINEL_OPTIONS)];
    expect(keys.filter((k) => !named.has(k))).toEqual([]);
  });
});
