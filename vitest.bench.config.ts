import { defineConfig } from 'vitest/config';

// Benchmarks written as vitest files: not part of `npm test` (they assert no timing), run on demand:
//   npx vitest run -c vitest.bench.config.ts
export default defineConfig({
  test: {
    include: ['bench/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    pool: 'forks',
  },
});
