/**
 * docs/proxy-options.schema.json and the loss keys: the link's loss, lossUp and lossDown take a
 * number in [0, 1) or text ("1%", "0.01"), as their descriptions say and the proxy reads them; the
 * schema showed only the number (a preprocess's output), so an editor flagged `"loss": "1%"`.
 */
import { describe, expect, it } from 'vitest';
import { PROXY_CONFIG } from '../../src/cli/proxy-config.js';
import { proxyOptionsJsonSchema } from '../../src/proxy/options-schema.js';
import { parseLossFraction } from '../../src/units.js';

type Json = { anyOf?: Json[]; type?: string; pattern?: string; minimum?: number; exclusiveMaximum?: number; properties?: Record<string, Json> };
const schema = proxyOptionsJsonSchema(PROXY_CONFIG) as Json;
const link = schema.properties!['link']!.properties!;

describe('the JSON Schema of the loss keys', () => {
  it.each(['loss', 'lossUp', 'lossDown'])('%s: a number in [0, 1), or the text the proxy reads', (key) => {
    const anyOf = link[key]!.anyOf!;
    expect(anyOf).toContainEqual({ type: 'number', minimum: 0, exclusiveMaximum: 1 });
    const text = new RegExp(anyOf.find((s) => s.type === 'string')!.pattern!);
    for (const ok of ['1%', '0.01', ' 2.5 % ', '.5']) {
      expect(text.test(ok), ok).toBe(true);
      expect(parseLossFraction(ok, key)).toBeLessThan(1);
    }
    for (const bad of ['2 percent', '-1%', '1e-2', '']) expect(text.test(bad), bad).toBe(false);
  });

  it("leaves the other keys as they were (the toxics' stream has no loss text)", () => {
    const lossText = link['loss']!.anyOf!.find((s) => s.type === 'string')!.pattern!;
    expect(JSON.stringify(schema.properties!['toxics'])).not.toContain(JSON.stringify(lossText));
    expect(link['rttUs']).toMatchObject({ type: 'number' });
    expect(link['rttUs']!.anyOf).toBeUndefined();
  });
});
