import type { Clock } from '../clock.js';
import type { ConnectionContext, EndKind } from '../stage/types.js';

/**
 * What a connection's stages see of it. A class, so every connection's context has the same
 * hidden class: a `closed` accessor defined per object (Object.defineProperty on a literal) gave
 * each connection its own map, and V8 migrated maps and missed its caches on every connection
 * set-up (docs/self-report.md "Fast path"). The promise is made on first use.
 */
export class StageContext implements ConnectionContext {
  constructor(
    readonly id: number,
    private readonly clock: Clock,
    private readonly onClose: (kind: EndKind) => void,
    private readonly onClosed: () => Promise<void>,
  ) {}

  nowNs(): number {
    return this.clock.nowNs();
  }

  close(kind: EndKind): void {
    this.onClose(kind);
  }

  get closed(): Promise<void> {
    return this.onClosed();
  }
}
