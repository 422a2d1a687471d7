/**
 * Formatters that pick their decimals by magnitude pick them from the value as printed: 9.96 at
 * one decimal is 10.0, which is in the whole-number band, so it prints 10, never "10.0".
 */
import { describe, expect, it } from 'vitest';
import { fmtBytes, fmtCount, fmtMsProse, fmtUsLabel, fmtFactor, fmtFactorNumber, fmtMs, fmtPctNumber, fmtSignedPct } from '../src/format.js';

describe('fmtFactor: one decimal below 10x, whole from 10x, judged after rounding', () => {
  it.each([
    [9.94, '9.9x'],
    [9.95, '9.9x'], // 9.95 is 9.9499... in binary
    [9.96, '10x'],
    [9.999, '10x'],
    [10, '10x'],
    [10.4, '10x'],
    [0.96, '1.0x'],
    [1, '1.0x'],
    [83.4, '83x'],
  ])('fmtFactor(%s) is %s', (x, text) => {
    expect(fmtFactor(x)).toBe(text);
    expect(fmtFactorNumber(x)).toBe(text.slice(0, -1));
  });

  it('is a dash for no number', () => {
    expect(fmtFactor(Number.NaN)).toBe('-');
    expect(fmtFactor(Infinity)).toBe('-');
  });
});

describe('the other formatters with magnitude bands', () => {
  it('fmtPctNumber and fmtSignedPct: 9.96% is 10%, either sign', () => {
    expect(fmtPctNumber(9.94)).toBe('9.9');
    expect(fmtPctNumber(9.96)).toBe('10');
    expect(fmtPctNumber(-9.96)).toBe('-10');
    expect(fmtSignedPct(9.96)).toBe('+10%');
    expect(fmtSignedPct(-0.04)).toBe('0.0%');
  });

  it('fmtMs: each band boundary reached by rounding takes the next band', () => {
    expect(fmtMs(0.9996)).toBe('1.00');
    expect(fmtMs(9.996)).toBe('10.0');
    expect(fmtMs(99.96)).toBe('100');
    expect(fmtMs(-99.96)).toBe('-100');
    expect(fmtMs(0.9994)).toBe('0.999');
    expect(fmtMs(12.34)).toBe('12.3');
  });
});

describe('values that round up into the next unit print in it', () => {
  it('counts, sizes, labels and prose durations', () => {
    expect(fmtCount(9999.6)).toBe('10k');
    expect(fmtCount(999_960)).toBe('1M');
    expect(fmtCount(9999.4)).toBe('9999');
    expect(fmtCount(12_345)).toBe('12.3k');
    expect(fmtBytes(999.6)).toBe('1K');
    expect(fmtBytes(999_600)).toBe('1M');
    expect(fmtBytes(512)).toBe('512');
    expect(fmtUsLabel(999.6)).toBe('1ms');
    expect(fmtUsLabel(999_600)).toBe('1s');
    expect(fmtUsLabel(850)).toBe('850us');
    expect(fmtUsLabel(1200)).toBe('1.2ms');
    expect(fmtUsLabel(-999.6)).toBe('-1ms');
    expect(fmtMsProse(999.96)).toBe('1 s');
    expect(fmtMsProse(18.24)).toBe('18.2 ms');
    expect(fmtMsProse(1250)).toBe('1.25 s');
  });
});
