/**
 * A bench result's figures are nullable (null when its configuration failed); the public API hands
 * library users the check that narrows to a result that has them, from 'redis-rtt' itself.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as api from '../../src/index.js';
import { isOk, type BenchReport, type BenchResult, type MeasuredResult } from '../../src/index.js';
import { buildBenchReport } from '../report/fixture-builder.js';

describe('the public API: MeasuredResult and isOk', () => {
  it('exports isOk, which narrows a bench result to one with figures and tells a failed one apart', () => {
    expect(api.isOk).toBeTypeOf('function');
    const report: BenchReport = buildBenchReport();
    const ok = report.results.find((r) => r.error === undefined)!;
    const failed: BenchResult = { ...ok, medianMs: null, opsPerSec: null, latencyUs: null, error: 'reply 3 was 2' };
    expect(isOk(ok)).toBe(true);
    expect(isOk(failed)).toBe(false);
    const measured = report.results.filter(isOk);
    expectTypeOf(measured).toEqualTypeOf<MeasuredResult[]>();
    expectTypeOf(measured[0]!.medianMs).toEqualTypeOf<number>();
    expect(measured.every((r) => typeof r.medianMs === 'number' && typeof r.opsPerSec === 'number')).toBe(true);
  });

  it('exports isOpenLoopOk, the same check for open-loop results', () => {
    expect(api.isOpenLoopOk).toBeTypeOf('function');
    expectTypeOf(api.isOpenLoopOk).guards.toEqualTypeOf<api.MeasuredOpenLoopResult>();
  });
});
