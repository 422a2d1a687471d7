import { describe, expect, it } from 'vitest';
import { compensationAt, parseCompensationTable } from '../../src/link/compensation.js';
import { LinkState } from '../../src/link/link-state.js';
import { ConfigError } from '../../src/errors.js';
import { startPrivateRedis, startProxy } from '../../src/index.js';

describe('compensation', () => {
  const table = { table: [{ delayUs: 100, compUs: 40 }, { delayUs: 600, compUs: 140 }, { delayUs: 5000, compUs: 200 }] };

  it('a constant is the same at every delay, per direction', () => {
    expect(compensationAt({ up: 10, down: 30 }, 'up', 5000)).toBe(10);
    expect(compensationAt({ up: 10, down: 30 }, 'down', 50)).toBe(30);
  });

  it('a table is linear between its points, flat above the last and proportional below the first', () => {
    expect(compensationAt(table, 'up', 100)).toBe(40);
    expect(compensationAt(table, 'up', 350)).toBe(90);
    expect(compensationAt(table, 'down', 600)).toBe(140);
    expect(compensationAt(table, 'down', 2800)).toBe(170);
    expect(compensationAt(table, 'up', 50)).toBe(20);
    expect(compensationAt(table, 'up', 0)).toBe(0);
    expect(compensationAt(table, 'up', 85_000)).toBe(200);
    expect(compensationAt({ table: [] }, 'up', 100)).toBe(0);
  });

  it('reads a saved calibrate result or a bare array, sorted, and refuses anything else', () => {
    const report = { kind: 'calibrate', compensationTable: [{ delayUs: 600, compUs: 140 }, { delayUs: 100, compUs: 40 }] };
    expect(parseCompensationTable(report, 'cal.json').table.map((p) => p.delayUs)).toEqual([100, 600]);
    expect(parseCompensationTable([{ delayUs: 0, compUs: 0 }], 'x').table).toEqual([{ delayUs: 0, compUs: 0 }]);
    for (const bad of [
      {},
      [],
      { compensationTable: 'no' },
      [{ delayUs: -1, compUs: 1 }],
      [{ delayUs: 1, compUs: Number.NaN }],
      [{ delayUs: '100', compUs: 1 }],
      [null],
      [{ delayUs: 100, compUs: 1 }, { delayUs: 100, compUs: 2 }],
    ]) {
      expect(() => parseCompensationTable(bad, 'bad.json')).toThrow(ConfigError);
    }
  });

  it('the link takes the table value at each direction\'s own delay off that direction, floored at zero', () => {
    const link = new LinkState({ upUs: 100, downUs: 600 }, { compensationUs: table, seed: 1 });
    expect(link.compensationUs).toEqual({ up: 40, down: 140 });
    expect(link.sampleNs('up')).toBe(60_000);
    expect(link.sampleNs('down')).toBe(460_000);
    link.update({ rttUs: 60 });
    expect(link.sampleNs('up')).toBe(18_000);
    link.setCompensation({ table: [{ delayUs: 10, compUs: 40 }] });
    expect(link.sampleNs('up')).toBe(0);
    link.setCompensation({ up: 5, down: 5 });
    link.update({ rttUs: 1000 });
    expect(link.sampleNs('down')).toBe(495_000);
    expect(link.compensationSetting).toEqual({ up: 5, down: 5 });
  });
});

describe('setCompensation on a running proxy (public: checked as the compensationUs option)', () => {
  it('refuses what the option refuses, naming the key, and keeps what it had', async () => {
    await using redis = await startPrivateRedis();
    await using proxy = await startProxy({ upstream: redis.address, link: { rttUs: 4000 }, compensationUs: { up: 10, down: 20 } });
    // Unchecked, { up } alone made the down delay NaN: no delay that way at all.
    const accepts = '{ up, down } in non-negative microseconds, or { table } of {delayUs, compUs}';
    expect(() => proxy.setCompensation({ up: 1000 } as never)).toThrow(new ConfigError('compensationUs', { up: 1000 }, accepts));
    expect(() => proxy.setCompensation({ up: -1, down: 0 })).toThrow(/^compensationUs\.up: invalid value -1; expected microseconds, 0 or more$/);
    expect(() => proxy.setCompensation({ up: 1, down: 1, table: [] } as never)).toThrow(ConfigError);
    expect(proxy.compensationUs).toEqual({ up: 10, down: 20 });
  });

  it('takes a table in any order, as the option does (it was read unsorted: 20 us where 811 is due)', async () => {
    await using redis = await startPrivateRedis();
    await using proxy = await startProxy({ upstream: redis.address, link: { rttUs: 4000 } });
    proxy.setCompensation({ table: [{ delayUs: 10_000, compUs: 100 }, { delayUs: 1000, compUs: 900 }] });
    const at2ms = 900 + ((100 - 900) * (2000 - 1000)) / (10_000 - 1000);
    expect(proxy.compensationUs).toEqual({ up: at2ms, down: at2ms });
  });
});
