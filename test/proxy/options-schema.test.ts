import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROXY_CONFIG } from '../../src/cli/proxy-config.js';
import { proxyOptionsJsonSchema } from '../../src/proxy/options-schema.js';

describe('docs/proxy-options.schema.json', () => {
  it('is what `npm run schema` writes from the options schema now', () => {
    const committed = readFileSync(new URL('../../docs/proxy-options.schema.json', import.meta.url), 'utf8');
    expect(committed, 'run `npm run schema` and commit the result').toBe(`${JSON.stringify(proxyOptionsJsonSchema(PROXY_CONFIG), null, 2)}\n`);
  });

  it('describes the options a config file holds, and none of the hooks', () => {
    expect((proxyOptionsJsonSchema() as { required?: string[] }).required).toEqual(['upstream']);
    // The config file's: --upstream may give the upstream; unknown keys are refused.
    type Schema = { required?: string[]; additionalProperties?: boolean; properties: Record<string, { default?: unknown }> };
    const s = proxyOptionsJsonSchema(PROXY_CONFIG) as Schema;
    expect(s.required).toBeUndefined();
    expect(s.additionalProperties).toBe(false);
    expect(Object.keys(s.properties)).toEqual(expect.arrayContaining(['record', '$schema', 'control', 'controlToken', 'listenTls']));
    expect(s.properties['highWaterBytes']?.default).toBe(4 * 1024 * 1024);
    expect(Object.keys(s.properties)).toEqual(expect.arrayContaining(['link', 'toxics', 'compensationUs', 'upstreamTls', 'zones']));
    for (const hook of ['log', 'onEvent', 'keyHash', 'onLinkChange', 'stages', 'scheduler', 'onNodeLinkChange']) expect(s.properties).not.toHaveProperty(hook);
  });
});
