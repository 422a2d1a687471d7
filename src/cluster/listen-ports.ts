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
    throw new NoFreePortError(this.range, [what]);
  }

  /** A port `take` gave, free again (its listener closed). */
  release(port: number): void {
    this.held.delete(port);
  }
}

/**
 * No port of --listen-ports was free for these listeners (`what`: "node 127.0.0.1:7003"). Typed so
 * that nodes that failed together are said in one message, not the range once per node.
 */
export class NoFreePortError extends NetworkError {
  constructor(
    readonly range: { from: number; to: number },
    readonly what: readonly string[],
  ) {
    const size = range.to - range.from + 1;
    const more = what.length > 1 ? ` (the range has ${size} port${size === 1 ? '' : 's'})` : '';
    super(`--listen-ports ${range.from}-${range.to}: no free port left for ${what.join(', ')}${more}`, 'EADDRINUSE');
  }
}

/** The errors of one range as one (each listener once, sorted), the others as they are. */
export function mergeNoFreePort(errors: readonly Error[]): Error[] {
  const byRange = new Map<string, NoFreePortError[]>();
  const rest: Error[] = [];
  for (const e of errors) {
    if (!(e instanceof NoFreePortError)) rest.push(e);
    else byRange.set(`${e.range.from}-${e.range.to}`, [...(byRange.get(`${e.range.from}-${e.range.to}`) ?? []), e]);
  }
  const merged = [...byRange.values()].map((list) => new NoFreePortError(list[0]!.range, [...new Set(list.flatMap((e) => e.what))].sort()));
  return [...merged, ...rest];
}
