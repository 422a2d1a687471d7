/**
 * What `bench --links` accepts is said once (workload/link-list.ts): the help, the closed- and the
 * open-loop option checks, and the comma-list reader all give the same text.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { ConfigError } from '../../src/errors.js';
import { LINKS_ACCEPTED } from '../../src/workload/link-list.js';
import { resolveOpenLoopOptions } from '../../src/workload/open-loop/options.js';
import { resolveBenchOptions } from '../../src/workload/options.js';
import { captureCliOutput } from '../helpers/cli-output.js';

const io = captureCliOutput();

const refusal = (f: () => unknown): ConfigError => {
  try {
    f();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('not refused');
};

describe('what bench --links accepts, said once', () => {
  it('names direct, local, every other preset and a spec', () => {
    expect(LINKS_ACCEPTED).toMatch(/^direct \(no proxy\), local \(proxy, no delay\), (?!local\b).*\bsame-az, cross-az\b.*, or rtt=2ms\/jitter=0\.2ms$/);
  });

  it('an empty list is refused with it, closed and open loop alike', () => {
    for (const e of [refusal(() => resolveBenchOptions({ links: [] })), refusal(() => resolveOpenLoopOptions({ links: [], durationUs: 1000 }))]) {
      expect(e.flag).toBe('--links');
      expect(e.accepts).toBe(LINKS_ACCEPTED);
    }
  });

  it.each([[[]], [['--rate', '100']]])('a stray comma in the list (%j) is refused with it, exit 2', async (extra) => {
    expect(await main(['node', 'redis-rtt', 'bench', '--links', 'direct,,local', ...extra])).toBe(2);
    expect(io.err).toContain(`redis-rtt: --links: invalid value "direct,,local"; expected ${LINKS_ACCEPTED}, comma-separated, with no empty item`);
  });

  it('the help says it', async () => {
    await main(['node', 'redis-rtt', 'bench', '--help']).catch(() => undefined);
    expect((io.out + io.err).replace(/\s+/g, ' ')).toContain(`comma-separated: ${LINKS_ACCEPTED}`);
  });
});
