import { NetworkError } from '../errors.js';

/**
 * --listen-ports A-B: a node listener takes the lowest port of the range that it does not hold
 * already and that is free; a node that leaves the cluster gives its port back (release).
 */
export class ListenPortRange {
  private readonly held = new Set<number>();

  constructor(private readonly range: { from: number; to: number }) {}

  /** `listen(port)` on the lowest free port of the range; what is listening is `what` in the error. */
  async take<T>(listen: (port: number) => Promise<T>, what: string): Promise<T> {
    const { from, to } = this.range;
    for (let port = from; port <= to; port++) {
      if (this.held.has(port)) continue;
      // Held before the listen resolves: a node opened meanwhile must not try the same port.
      this.held.add(port);
      try {
        return await listen(port);
      } catch (err) {
        this.held.delete(port);
        if (!(err instanceof NetworkError && err.code === 'EADDRINUSE')) throw err;
      }
    }
    throw new NetworkError(`--listen-ports ${from}-${to}: no free port left for ${what}`, 'EADDRINUSE');
  }

  /** A port `take` gave, free again (its listener closed). */
  release(port: number): void {
    this.held.delete(port);
  }
}
