import { NetworkError } from '../errors.js';

/**
 * --listen-ports A-B, one for every client zone's listeners: a node listener takes the lowest port
 * of the range that no listener holds and that is free, a port given back (release) only once no
 * other is left, the one given back longest ago first. A client that knew the port given back
 * (a node that left, or moved to another address) dials it again: it must not land on another
 * node's listener, nor another client zone's, while the range has ports nobody was given.
 */
export class ListenPortRange {
  private readonly held = new Set<number>();
  /** Ports given back, the oldest first (a port given back again moves to the end). */
  private readonly released = new Set<number>();

  constructor(private readonly range: { from: number; to: number }) {}

  /** `listen(port)` on the port the rule above picks; what is listening is `what` in the error. */
  async take<T>(listen: (port: number) => Promise<T>, what: string): Promise<T> {
    for (const port of this.candidates()) {
      if (this.held.has(port)) continue;
      // Held before the listen resolves: a node opened meanwhile must not try the same port.
      this.held.add(port);
      try {
        const listening = await listen(port);
        this.released.delete(port);
        return listening;
      } catch (err) {
        this.held.delete(port);
        if (!(err instanceof NetworkError && err.code === 'EADDRINUSE')) throw err;
      }
    }
    // The ports other takes are still trying count as held: most will listen.
    throw new NoFreePortError(this.range, [what], this.held.size);
  }

  private *candidates(): Generator<number> {
    for (let port = this.range.from; port <= this.range.to; port++) if (!this.released.has(port)) yield port;
    yield* [...this.released];
  }

  /** A port `take` gave, free again (its listener closed). */
  release(port: number): void {
    this.held.delete(port);
    this.released.delete(port);
    this.released.add(port);
  }
}

/**
 * No port of --listen-ports was free for these listeners (`what`: "node 127.0.0.1:7003"). Typed so
 * that nodes that failed together are said in one message, not the range once per node. It says
 * how many ports the nodes need (`held`: the range's ports this proxy's listeners held then, plus
 * one per listener that got none) so the user knows what range to give, not only that it is full.
 * `held` counts the ports other takes were still trying: one of them may fail too, on a port another
 * process holds, and its own `held` is then the lower (mergeNoFreePort takes the least).
 */
export class NoFreePortError extends NetworkError {
  constructor(
    readonly range: { from: number; to: number },
    readonly what: readonly string[],
    readonly held: number,
  ) {
    const size = range.to - range.from + 1;
    const others = size - held;
    const inUse = others > 0 ? `, ${others} in use by ${others === 1 ? 'another process' : 'other processes'}` : '';
    const why = `the range has ${size} port${size === 1 ? '' : 's'}: ${held} held by this proxy's listeners${inUse}; the nodes need ${held + what.length}`;
    super(`--listen-ports ${range.from}-${range.to}: no free port left for ${what.join(', ')} (${why})`, 'EADDRINUSE');
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
  // Failed side by side: a take that failed counted the others' tries as held; the last to fail, the fewest.
  const merged = [...byRange.values()].map(
    (list) => new NoFreePortError(list[0]!.range, [...new Set(list.flatMap((e) => e.what))].sort(), Math.min(...list.map((e) => e.held))),
  );
  return [...merged, ...rest];
}
