import { describe, expect, it } from 'vitest';
import { PeriodicRefresh } from '../../src/cluster/periodic-refresh.js';

/** A refresh whose reads fail (or not) as scripted, one outcome per read. */
class Scripted extends PeriodicRefresh {
  constructor(
    private readonly outcomes: (string | undefined)[],
    log: (line: string) => void,
  ) {
    super(3_600_000, 'topology', log);
  }

  protected read(): Promise<void> {
    const failure = this.outcomes.shift();
    return failure === undefined ? Promise.resolve() : Promise.reject(new Error(failure));
  }
}

describe('a periodic refresh that keeps failing', () => {
  it('says a failure when it starts and when it changes, and once when it clears, not at every read', async () => {
    const lines: string[] = [];
    const r = new Scripted([undefined, 'no port for A', 'no port for A', 'no port for A', 'no port for A; no port for B', 'no port for A; no port for B', undefined, undefined, 'no port for A'], (l) => lines.push(l));
    for (let i = 0; i < 9; i++) await r.refresh();
    expect(lines).toEqual([
      'topology refresh failed: no port for A',
      'topology refresh failed: no port for A; no port for B',
      'topology refresh works again',
      'topology refresh failed: no port for A',
    ]);
  });
});
