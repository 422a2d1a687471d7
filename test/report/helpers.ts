/**
 * Golden-file plumbing: UPDATE_GOLDEN=1 (re)writes fixtures and goldens; otherwise they are read
 * and compared, and a missing file fails with the command that creates it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { BenchReport, CalibrateReport } from '../../src/results/types.js';
import { buildBenchReport, buildCalibrateReport } from './fixture-builder.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = join(ROOT, 'fixtures', 'report');
export const GOLDEN = join(FIXTURES, 'golden');
export const UPDATE = process.env.UPDATE_GOLDEN === '1';

function fixture<T>(file: string, builder: () => T): T {
  const path = join(FIXTURES, file);
  if (UPDATE) {
    mkdirSync(FIXTURES, { recursive: true });
    writeFileSync(path, `${JSON.stringify(builder(), null, 2)}\n`);
  }
  if (!existsSync(path)) throw new Error(`${path} is missing: run UPDATE_GOLDEN=1 npx vitest run test/report`);
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export const benchFixture = (): BenchReport => fixture('bench-report.json', buildBenchReport);
export const calibrateFixture = (): CalibrateReport => fixture('calibrate-report.json', buildCalibrateReport);

export function expectGolden(file: string, actual: string): void {
  const path = join(GOLDEN, file);
  if (UPDATE) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  if (!existsSync(path)) throw new Error(`${path} is missing: run UPDATE_GOLDEN=1 npx vitest run test/report`);
  expect(actual, `differs from ${file} (UPDATE_GOLDEN=1 rewrites it after review)`).toBe(readFileSync(path, 'utf8'));
}
