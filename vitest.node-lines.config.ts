import { defineConfig } from 'vitest/config';
import { sharedTestOptions } from './vitest.config.js';

/**
 * What `.ci/run` runs again on Node 22 and 24, and 26 on request (the whole suite runs on the default Node): the
 * unit tests of the data path, and a core integration subset against real redis-server (proxy,
 * tap, cluster, toxiproxy API, TLS). Chosen for what differs between Node lines (sockets, TLS,
 * timers, child processes) at a cost the CI budget holds (client-cert-verify reads a Node internal,
 * _handle.verifyError(), so each line checks it is still there); docs/CONTRIBUTING.md says what each costs.
 * The CLI end-to-end files and the fuzzers stay on the default Node only: they cost the most and
 * exercise the same Node APIs as the files here.
 */
// Not the base config itself: its projects would replace this include.
export default defineConfig({
  test: {
    ...sharedTestOptions,
    fileParallelism: false,
    // One process for every file: the subset's files do not rely on a fresh module graph each, and
    // the forks' start-up and imports were a third of its time (88 s against 61 s a Node line).
    isolate: false,
    include: [
      'test/{resp,link,stage,stats,http,numbers,layout,toxics,tap}/**/*.test.ts',
      'test/proxy/{forwarding,clients,stages,byte-stages,live-framing,stats,start-control,normalize-options,options-schema,closed-connections}.test.ts',
      'test/cluster/{cluster-proxy,clients,rewrite,rewrite-stage,placement}.test.ts',
      'test/toxiproxy-api/{client-crud,effects}.test.ts',
      'test/tls/{proxy-tls,tls-stage-pair,client-cert-verify}.test.ts',
      'test/redis/{private-redis,private-cluster}.test.ts',
      ],
    exclude: ['test/resp/fuzz.test.ts', 'test/toxics/chain-fuzz.test.ts', 'test/tap/buffers.test.ts', 'test/stats/promtool.test.ts'],
  },
});
