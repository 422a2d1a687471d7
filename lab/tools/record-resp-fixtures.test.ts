import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recordAll } from '../../test/resp/record-fixtures.js';

// Re-records fixtures/resp from a private redis-server. Off by default: fixtures are committed and
// tests must not depend on a server's version-specific output. Run on demand:
//   npx vitest run -c lab/vitest.config.ts record-resp-fixtures
describe('record RESP fixtures', () => {
  it('records every session', async () => {
    const dir = new URL('../../fixtures/resp/', import.meta.url).pathname;
    mkdirSync(dir, { recursive: true });
    const names = await recordAll(dir);
    expect(names.length).toBeGreaterThan(5);
  });
});
