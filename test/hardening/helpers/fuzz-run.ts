import net from 'node:net';
import type { Rng } from './rng.js';

/**
 * Runs `one(caseIndex)` for up to `maxCases` cases, `concurrency` at a time, stopping early when
 * `budgetMs` is spent (a loaded CI machine runs fewer cases, never a longer test). Resolves with the
 * number of cases run; the first failure rejects with its case index (replay it by seed).
 */
export async function runCases(
  maxCases: number,
  budgetMs: number,
  concurrency: number,
  one: (caseIndex: number) => Promise<void>,
): Promise<number> {
  const t0 = Date.now();
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < maxCases && Date.now() - t0 < budgetMs) {
      const i = next++;
      try {
        await one(i);
      } catch (err) {
        throw new Error(`fuzz case ${i} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done;
}

/** Writes `data` in random pieces, sometimes yielding between them so the proxy reads them apart. */
export async function writeInPieces(s: net.Socket, data: Buffer, rng: Rng): Promise<void> {
  for (const part of rng.split(data, 6)) {
    if (s.destroyed) return;
    s.write(part);
    if (rng.chance(0.3)) await new Promise((r) => setImmediate(r));
  }
}

/** Rejects if `p` takes longer than `ms`: a fuzz case that hangs is a failure, not a stuck test. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
