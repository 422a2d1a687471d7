// `npm run schema`: writes the JSON Schema of the proxy options (built from src/proxy/options-schema.ts)
// to docs/proxy-options.schema.json; test/proxy/options-schema.test.ts fails when it is stale.
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';
import { proxyOptionsJsonSchema } from '../dist/proxy/options-schema.js';

const out = new URL('../docs/proxy-options.schema.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(proxyOptionsJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${out.pathname}\n`);
