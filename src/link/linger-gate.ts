import type { DeliverySource } from '../stage/types.js';

/**
 * Which zero-delay deliveries may make the scheduler linger: only while one connection exchanges
 * data. Counts the sources (delay lines; a connection has two) that delivered in activity windows
 * one linger long; past `maxSources` in this window or the one before, the traffic itself keeps
 * the process awake, and polling would only take CPU from Redis and the clients.
 */
export class LingerGate {
  private window = 0;
  private windowStartNs = -Infinity;
  private sourcesInWindow = 0;
  private sourcesBefore = 0;

  constructor(
    private readonly lingerNs: number,
    private readonly maxSources: number,
  ) {}

  /** `source` delivered at `nowNs`: whether few enough sources deliver at once to linger. */
  allows(nowNs: number, source: DeliverySource): boolean {
    if (nowNs - this.windowStartNs >= this.lingerNs) {
      this.sourcesBefore = nowNs - this.windowStartNs < 2 * this.lingerNs ? this.sourcesInWindow : 0;
      this.sourcesInWindow = 0;
      this.window++;
      this.windowStartNs = nowNs;
    }
    if (source.activeWindow !== this.window) {
      source.activeWindow = this.window;
      this.sourcesInWindow++;
    }
    return Math.max(this.sourcesBefore, this.sourcesInWindow) <= this.maxSources;
  }
}
