import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'lab/test/**/*.test.ts'],
    // Integration tests spawn real redis-server processes and measure wall-clock delay:
    // running files in parallel on a 2-core machine would make timing checks flaky.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
