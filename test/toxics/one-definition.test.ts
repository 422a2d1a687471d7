import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readProxyConfig } from '../../src/cli/proxy-config.js';
import { ConfigError } from '../../src/errors.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { TOXIC_TYPES } from '../../src/toxics/index.js';
import { startToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';
import { configFiles } from '../helpers/config-files.js';

/**
 * One definition of a toxic (src/toxics/spec.ts) read by the JSON Schema, a config file, the CLI,
 * startProxy and the HTTP API: `stream` in any case everywhere (toxiproxy lower-cases it);
 * unknown keys refused by our own surfaces and ignored by the API, as toxiproxy's Go decoder does.
 * The schema refused "UPSTREAM", which the loader took, and let through misspelled keys the
 * loader refused; the CLI's --toxic ran a misspelled attribute with its default.
 */
const files = configFiles('redis-rtt-one-toxic-');
afterAll(() => files.remove());
const upstream = '127.0.0.1:6379';

type JsonSchema = { properties: Record<string, JsonSchema>; additionalProperties?: boolean; pattern?: string; oneOf?: JsonSchema[]; const?: string };
const schema = JSON.parse(readFileSync(new URL('../../docs/proxy-options.schema.json', import.meta.url), 'utf8')) as JsonSchema;
const toxicSchemas = (schema.properties['toxics'] as unknown as { items: { oneOf: JsonSchema[] } }).items.oneOf;

describe('docs/proxy-options.schema.json says of a toxic what the loader does', () => {
  it('stream in any case, and nothing else', () => {
    for (const t of toxicSchemas) {
      const stream = new RegExp(t.properties['stream']!.pattern!);
      for (const ok of ['upstream', 'UPSTREAM', 'Downstream', 'downstream']) expect(stream.test(ok), ok).toBe(true);
      for (const bad of ['sideways', 'up', 'upstreams', ' upstream']) expect(stream.test(bad), bad).toBe(false);
    }
  });

  it("no key beyond the toxic's own, in the toxic and in its attributes, for every type", () => {
    expect(toxicSchemas.map((t) => t.properties['type']!.const).sort()).toEqual([...TOXIC_TYPES.keys()].sort());
    for (const t of toxicSchemas) {
      const type = t.properties['type']!.const!;
      expect(t.additionalProperties, type).toBe(false);
      expect(t.properties['attributes']!.additionalProperties, type).toBe(false);
      const shape = (TOXIC_TYPES.get(type)!.attributes as unknown as { shape: object }).shape;
      expect(Object.keys(t.properties['attributes']!.properties ?? {}), type).toEqual(Object.keys(shape));
    }
  });
});

describe('stream in any case, unknown keys refused: config file, CLI, startProxy', () => {
  it('a config file takes "stream": "UPSTREAM" (as the schema now says) and refuses a misspelled attribute', async () => {
    const config = await readProxyConfig(files.file({ upstream, toxics: [{ type: 'latency', stream: 'UPSTREAM', attributes: { latency: 5 } }] }));
    expect(config.toxics).toEqual([{ type: 'latency', stream: 'UPSTREAM', attributes: { latency: 5 } }]);
    const path = files.file({ upstream, toxics: [{ type: 'latency', stream: 'UPSTREAM', attributes: { latncy: 5 } }] });
    const e = await readProxyConfig(path).then(() => undefined, (err: ConfigError) => err);
    expect(e?.flag).toBe(`${path}: toxics[0].attributes.latncy`);
    const empty = files.file({ upstream, toxics: [{ type: 'latency', stream: '' }] });
    const e2 = await readProxyConfig(empty).then(() => undefined, (err: ConfigError) => err);
    expect(e2?.flag).toBe(`${empty}: toxics[0].stream`);
  });

  it('--toxic and --toxics FILE refuse a misspelled attribute or key with exit 2, naming it; "UPSTREAM" is upstream', async () => {
    const typo = await runCli(['proxy', '--upstream', upstream, '--toxic', '{"type":"latency","attributes":{"latncy":5}}', '--print-config']);
    expect(typo.code, typo.stderr).toBe(2);
    expect(typo.stderr).toContain("--toxic attributes.latncy: invalid value 5; expected a key of latency's attributes: latency, jitter");
    const list = files.file([{ type: 'timeout', strem: 'upstream' }]);
    const fromFile = await runCli(['proxy', '--upstream', upstream, '--toxics', list, '--print-config']);
    expect(fromFile.code, fromFile.stderr).toBe(2);
    expect(fromFile.stderr).toContain(`--toxics ${list} [0] strem: invalid value "upstream"; expected a key of a toxic: name, type, stream, toxicity, attributes`);
    const upper = await runCli(['proxy', '--upstream', upstream, '--toxic', '{"type":"latency","stream":"UPSTREAM","attributes":{"latency":5}}', '--print-config']);
    expect(upper.code, upper.stderr).toBe(0);
    expect((JSON.parse(upper.stdout) as { toxics: unknown[] }).toxics).toEqual([
      // Named by the stream as sent, as toxiproxy names it.
      { name: 'latency_UPSTREAM', stream: 'upstream', toxicity: 1, type: 'latency', attributes: { latency: 5, jitter: 0 } },
    ]);
  });

  it('startProxy refuses a misspelled attribute with a ConfigError naming it, before anything listens', async () => {
    const e = await startProxy({ upstream, cluster: 'off', toxics: [{ type: 'latency', attributes: { latncy: 5 } }], log: () => {} }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).flag).toBe('attributes.latncy');
  });
});

it("the HTTP API ignores unknown keys and takes stream in any case, as toxiproxy's does", async () => {
  const server = await startToxiproxyServer({ api: '127.0.0.1:0', log: () => undefined, seed: 1 });
  try {
    const post = async (path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
      const r = await fetch(`http://${server.api}${path}`, { method: 'POST', body: JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    expect((await post('/proxies', { name: 'p', listen: '127.0.0.1:0', upstream })).status).toBe(201);
    const r = await post('/proxies/p/toxics', { type: 'latency', name: 'l', stream: 'UPSTREAM', extra: 1, attributes: { latency: 5, bogus: 1 } });
    expect(r).toEqual({ status: 200, body: { name: 'l', type: 'latency', stream: 'upstream', toxicity: 1, attributes: { latency: 5, jitter: 0 } } });
    // No name: toxiproxy 2.12 names it by the stream as sent (latency_UPSTREAM), and that name finds it.
    const unnamed = await post('/proxies/p/toxics', { type: 'latency', stream: 'UPSTREAM', attributes: { latency: 1 } });
    expect(unnamed.body['name']).toBe('latency_UPSTREAM');
    expect((await fetch(`http://${server.api}/proxies/p/toxics/latency_UPSTREAM`, { method: 'DELETE' })).status).toBe(204);
    // An empty stream is refused, as toxiproxy refuses it (and the schema's pattern); it was taken as downstream.
    expect(await post('/proxies/p/toxics', { type: 'latency', stream: '' })).toEqual({
      status: 400,
      body: { error: 'stream was invalid, can be either upstream or downstream', status: 400 },
    });
  } finally {
    await server.close();
  }
});
