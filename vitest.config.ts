import { configDefaults, defineConfig } from 'vitest/config';

/** What every run shares, the Node-lines subset (vitest.node-lines.config.ts) too. */
export const sharedTestOptions = {
  testTimeout: 60_000,
  hookTimeout: 30_000,
  pool: 'forks',
} as const;

/**
 * Pure unit files: no socket, no child process, no wall-clock timing (fake clocks only), no mocked module.
 * They run two at a time (the machine has 2 cores) before the rest; a new file is not here, so it runs
 * in the serial group, which is always safe. test/package/test-groups.test.ts checks that these stay pure.
 */
export const unitFiles = [
  'test/package/test-groups.test.ts',
  'lab/test/lab-cli.test.ts', 'test/api/building-blocks.test.ts', 'test/cluster/cluster-table.test.ts', 'test/cluster/median-sample.test.ts', 'test/cluster/node-set.test.ts',
  'test/cluster/open-failures.test.ts', 'test/cluster/periodic-refresh.test.ts', 'test/cluster/placement.test.ts', 'test/cluster/rewrite-stage.test.ts',
  'test/cluster/rewrite.test.ts', 'test/dashboard/stats-window.test.ts', 'test/dashboard/token-cookie.test.ts', 'test/docs/analyze-sample.test.ts',
  'test/docs/counters.test.ts', 'test/docs/metrics-families.test.ts', 'test/docs/open-loop-json.test.ts', 'test/docs/readme.test.ts',
  'test/docs/self-report.test.ts', 'test/format.test.ts', 'test/layout/endpoint.test.ts', 'test/link/delay-line.test.ts', 'test/link/jitter.test.ts',
  'test/link/link-over-time.test.ts', 'test/link/loss-cost.test.ts', 'test/link/loss-model.test.ts', 'test/link/poll-budget.test.ts',
  'test/link/rto.test.ts', 'test/link/schedule-partitions.test.ts', 'test/numbers/quantiles.test.ts', 'test/package/no-any.test.ts',
  'test/proxy/normalize-options.test.ts', 'test/record/analyze.test.ts', 'test/record/cli-options.test.ts', 'test/record/cluster-trace.test.ts',
  'test/report/connection-setup.test.ts', 'test/report/escape.test.ts', 'test/report/golden.test.ts', 'test/report/partial.test.ts',
  'test/report/proxy-cpu.test.ts', 'test/report/scale.test.ts', 'test/resp/bytes.test.ts', 'test/resp/differential.test.ts',
  'test/resp/empty-requests.test.ts', 'test/resp/fixtures.test.ts', 'test/resp/inline.test.ts', 'test/resp/reply-framer-skip.test.ts',
  'test/resp/request-framer.test.ts', 'test/resp/resp3-property.test.ts', 'test/resp/skipped-bytes.test.ts', 'test/results/public-api.test.ts',
  'test/sentinel/primary-answers.test.ts', 'test/sentinel/rewrite.test.ts', 'test/stage/byte-chain.test.ts', 'test/stage/frame-chain-ends.test.ts',
  'test/stage/request-info.test.ts', 'test/stats/counters.test.ts', 'test/stats/histogram.test.ts', 'test/stats/live-set.test.ts',
  'test/stats/renderers.test.ts', 'test/stats/self-budget.test.ts', 'test/stats/stats-collector.test.ts', 'test/tap/buffers.test.ts',
  'test/tap/command-resolver.test.ts', 'test/tap/correlator-basic.test.ts', 'test/tap/correlator-modes.test.ts', 'test/tap/first-key.test.ts',
  'test/tap/tap-after.test.ts', 'test/tap/tap.test.ts', 'test/text-grid-color.test.ts', 'test/toxics/chain-fuzz.test.ts',
  'test/toxics/redis-toxics.test.ts', 'test/validation/json-text.test.ts', 'test/workload/breakdown.test.ts', 'test/workload/driver-warmup.test.ts',
  'test/workload/open-loop/dispatcher.test.ts', 'test/workload/open-loop/incr-replies.test.ts', 'test/workload/open-loop/punctual.test.ts',
  'test/workload/open-loop/result.test.ts', 'test/workload/read-cpu.test.ts', 'test/workload/round-trips.test.ts', 'test/workload/verify.test.ts',
];

/**
 * Unit files that need a module graph of their own: topology-refresh's vi.mock replaces a module other files import
 * for real; framed-tap counts framer calls through a spy on the framers' prototypes, and miscounted (7 cases) after
 * some other file in the same worker, on 2026-12-07.
 */
const freshModuleFiles = ['test/cluster/topology-refresh.test.ts', 'test/tap/framed-tap.test.ts'];

export default defineConfig({
  test: {
    ...sharedTestOptions,
    projects: [
      // Group 0: the unit files, two workers, one module graph per worker (isolate: false: the fork's start-up
      // and imports per file cost more than most of these files' tests).
      {
        extends: true,
        test: { name: 'unit', include: unitFiles, isolate: false, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'unit-fresh', include: freshModuleFiles, isolate: true, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      // Group 1, after it: everything else, one file at a time. These spawn real redis-server processes and
      // measure wall-clock delay: running them in parallel on a 2-core machine would make timing checks flaky.
      // A fresh worker per file: in one worker for all (isolate: false) on 2026-12-07, what earlier files left
      // running (22683 setImmediate calls) failed turn-hook's count, and the timing checks ran beside it.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', 'lab/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...unitFiles, ...freshModuleFiles],
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
