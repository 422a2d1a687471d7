/**
 * Formatters that pick their decimals by magnitude pick them from the value as printed: 9.96 at
 * one decimal is 10.0, which is in the whole-number band, so it prints 10, never "10.0".
 */
import { describe, expect, it } from 'vitest';
import { fmtFactor, fmtFactorNumber, fmtMs, fmtPctNumber, fmtSignedPct } from '../src/format.js';

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
