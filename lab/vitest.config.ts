import { defineConfig } from 'vitest/config';

// On-demand vitest files, not part of `npm test`: benchmarks (lab/bench/, they print figures) and the
// fixture recorder (lab/tools/). Run: npx vitest run -c lab/vitest.config.ts [name filter]
export default defineConfig({
  test: {
    include: ['lab/bench/**/*.test.ts', 'lab/tools/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    pool: 'forks',
  },
});
