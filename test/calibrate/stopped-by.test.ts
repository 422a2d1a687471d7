import { afterEach, describe, expect, it } from 'vitest';
import { runCalibrate } from '../../src/calibrate/run.js';
import { abortOnStop, type StopRequest } from '../../src/cli/stop-request.js';

let stop: StopRequest | undefined;
afterEach(() => {
  stop?.dispose();
  stop = undefined;
});

/** The verdict of a calibrate run stopped before its first PING by `abort`. */
async function verdictAfter(abort: (c: AbortController) => void): Promise<string> {
  const c = new AbortController();
  abort(c);
  const report = await runCalibrate({ rttsUs: [0, 1000], samples: 100, rounds: 1, idleCpu: false, signal: c.signal });
  expect(report.interrupted).toBe(true);
  return report.verdict;
}

describe("calibrate's verdict names what stopped it", () => {
  it('the CLI aborts with the signal it got, SIGTERM as SIGTERM (its verdict said Ctrl-C for both)', async () => {
    stop = abortOnStop(() => {});
    process.emit('SIGTERM');
    expect([stop.signal.reason, stop.exitStatus]).toEqual(['SIGTERM', 143]);
    stop.dispose();
    stop = abortOnStop(() => {});
    process.emit('SIGINT');
    expect([stop.signal.reason, stop.exitStatus]).toEqual(['SIGINT', 130]);
  });

  it('interrupted (SIGTERM), interrupted (Ctrl-C), and plain "interrupted" for a library caller\'s own abort', { timeout: 60_000 }, async () => {
    expect(await verdictAfter((c) => c.abort('SIGTERM'))).toMatch(/^interrupted \(SIGTERM\): only the rows that finished are reported\. /);
    expect(await verdictAfter((c) => c.abort('SIGINT'))).toMatch(/^interrupted \(Ctrl-C\): only the rows that finished are reported\. /);
    expect(await verdictAfter((c) => c.abort())).toMatch(/^interrupted: only the rows that finished are reported\. /);
  });
});
