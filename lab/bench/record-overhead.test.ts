/**
 * Recording overhead: the same sequential GET loop through a `local` proxy with and without --record
 * (keys none and hashed), order rotated each run, median (and fastest) of 15 runs each. A measurement, not a check: it runs only with
 * npx vitest run -c lab/vitest.config.ts record-overhead and prints its figures.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { median } from '../../src/numbers/quantiles.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { createRecorder, type Recorder } from '../../src/record/recorder.js';
import { startPrivateRedis } from '../../src/redis/private-redis.js';
import { LOCAL_LINK } from '../../test/record/synthetic.js';

const APP = fileURLToPath(new URL('../../fixtures/record/seq-gets.mjs', import.meta.url));
const N = 5000;
const RUNS = 15;

function app(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [APP, host, String(port), String(N)], (err, stdout) => {
      if (err) return reject(err);
      resolve((JSON.parse(stdout) as { wallMs: number }).wallMs);
    });
  });
}


describe('recording overhead', () => {
  it('sequential GETs through a local proxy, with and without --record', async () => {
    const redis = await startPrivateRedis();
    const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-overhead-'));
    const usPerGet: Record<'off' | 'none' | 'hashed', number[]> = { off: [], none: [], hashed: [] };
    try {
      for (let run = 0; run < RUNS; run++) {
        const modes = (['off', 'none', 'hashed'] as const).map((_, i, all) => all[(i + run) % all.length]!);
        for (const mode of modes) {
          const rec: Recorder | undefined = mode === 'off' ? undefined : createRecorder({ path: join(dir, `${mode}.trace`), link: LOCAL_LINK, keys: mode });
          const proxy = await startSingleNodeProxy({
            upstream: redis.address,
            link: { preset: 'local' },
            log: () => {},
            ...(rec ? { onEvent: (e) => rec.onEvent(e), argSizes: true, keyHash: rec.keyHash } : {}),
          });
          const wallMs = await app(proxy.host!, proxy.port!);
          await proxy.close();
          await rec?.close();
          usPerGet[mode].push((1000 * wallMs) / N);
        }
      }
    } finally {
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    const off = median(usPerGet.off);
    const lines = (['off', 'none', 'hashed'] as const).map((m) => {
      const med = median(usPerGet[m]);
      return `${m.padEnd(6)} median ${med.toFixed(1)} us/GET, fastest ${Math.min(...usPerGet[m]).toFixed(1)} (${m === 'off' ? 'baseline' : `${med - off >= 0 ? '+' : ''}${(med - off).toFixed(1)} us, ${((100 * (med - off)) / off).toFixed(1)}%`}); runs ${usPerGet[m].map((x) => x.toFixed(0)).join(' ')}`;
    });
    console.log(`recording overhead, ${N} sequential GETs x ${RUNS} runs, local link\n${lines.join('\n')}`);
    expect(off).toBeGreaterThan(0);
  }, 300_000);
});
