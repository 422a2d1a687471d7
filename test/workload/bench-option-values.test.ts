/**
 * runBench checks the options a TypeScript type alone cannot hold a JavaScript caller to:
 * `protocol: 4` or `'3'` ran the bench over RESP2 (no HELLO) without a word, and an `include` or
 * `adjust` that is not a function threw a TypeError in the middle of planning. Each is a ConfigError
 * naming the key, before anything is spawned.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, runBench, type BenchOptions } from '../../src/index.js';
import { resolveBenchOptions } from '../../src/workload/options.js';
import { resolveOpenLoopOptions } from '../../src/workload/open-loop/options.js';

/** The smallest run, should a bad value get through: one link, one shape, five commands. */
const TINY: BenchOptions = { n: 5, repeat: 1, links: ['local'], modes: ['seq'], batches: [1], driverWarmupMs: 0 };

async function refusal(bad: Record<string, unknown>): Promise<ConfigError | undefined> {
  try {
    await runBench({ ...TINY, ...bad } as BenchOptions);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  return undefined;
}

describe('runBench refuses a value its type rules out', () => {
  it.each([4, '3', 0])('protocol %j', async (protocol) => {
    const e = await refusal({ protocol });
    expect({ flag: e?.flag, value: e?.value, accepts: e?.accepts }).toEqual({ flag: 'protocol', value: protocol, accepts: '2 or 3 (RESP3, with HELLO, is the default)' });
  });

  it.each(['include', 'adjust'])('%s that is not a function', async (hook) => {
    const e = await refusal({ [hook]: 'seq' });
    expect({ flag: e?.flag, accepts: e?.accepts }).toEqual({ flag: hook, accepts: 'a function of the configuration' });
  });

  it('compensation with only direct links (no proxy to compensate), before anything is spawned; with a proxied link it is taken', async () => {
    const e = await refusal({ links: ['direct'], compensation: 'auto' });
    expect({ flag: e?.flag, value: e?.value }).toEqual({ flag: 'compensation', value: 'auto' });
    expect(() => resolveBenchOptions({ ...TINY, links: ['direct', 'local'], compensation: 'auto' })).not.toThrow();
    expect(() => resolveOpenLoopOptions({ links: ['direct'], rates: [100], compensation: 40 })).toThrow(/--compensate: invalid value 40; expected a link with a proxy/);
  });
});
