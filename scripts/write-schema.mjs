// `npm run schema`: writes the JSON Schema of a `redis-rtt proxy --config` file (the proxy options of
// src/proxy/options-schema.ts plus `record`, src/cli/proxy-config.ts) to docs/proxy-options.schema.json,
// which the package ships; test/proxy/options-schema.test.ts fails when it is stale.
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';
import { proxyOptionsJsonSchema } from '../dist/proxy/options-schema.js';
import { PROXY_CONFIG } from '../dist/cli/proxy-config.js';

const out = new URL('../docs/proxy-options.schema.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(proxyOptionsJsonSchema(PROXY_CONFIG), null, 2)}\n`);
process.stdout.write(`wrote ${out.pathname}\n`);
