import { NetworkError } from '../errors.js';

/** --listen-ports A-B: the node listeners take the range's ports in turn, skipping ones in use. */
export class ListenPortRange {
  private next: number;

  constructor(private readonly range: { from: number; to: number }) {
    this.next = range.from;
  }

  /** `listen(port)` on the next free port of the range; what is listening is `what` in the error. */
  async take<T>(listen: (port: number) => Promise<T>, what: string): Promise<T> {
    const { from, to } = this.range;
    while (this.next <= to) {
      const port = this.next++;
      try {
        return await listen(port);
      } catch (err) {
        if (!(err instanceof NetworkError && err.code === 'EADDRINUSE')) throw err;
      }
    }
    throw new NetworkError(`--listen-ports ${from}-${to}: no free port left for ${what}`, 'EADDRINUSE');
  }
}
