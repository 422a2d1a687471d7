import type { ByteSink, EndKind } from '../stage/types.js';
import { passThrough, type ToxicByteStage } from './definition.js';

/**
 * A byte toxic on one connection with its toxicity roll: the toxic's stage while the roll hit, a
 * pass-through while it missed. The roll is made when the connection opens and again at each update
 * of the toxic, as toxiproxy's ToxicStub.Run rolls it each time a link's pipe (re)starts: an update
 * to toxicity 1 reaches every open connection, one to 0 leaves them all.
 */
export class RolledByteStage implements ToxicByteStage {
  private inner: ToxicByteStage;
  private hit: boolean;

  constructor(
    private readonly next: ByteSink,
    private readonly make: () => ToxicByteStage,
    private readonly roll: () => boolean,
    private readonly onDestroy: (stage: RolledByteStage) => void,
  ) {
    this.hit = roll();
    this.inner = this.hit ? make() : passThrough(next);
  }

  push(chunk: Buffer, nowNs: number): void {
    this.inner.push(chunk, nowNs);
  }

  end(kind: EndKind, nowNs: number): void {
    this.inner.end(kind, nowNs);
  }

  drain(nowNs: number): void {
    this.inner.drain(nowNs);
  }

  destroy(): void {
    this.inner.destroy();
    this.onDestroy(this);
  }

  get pendingBytes(): number {
    return this.inner.pendingBytes;
  }

  /** The toxic was updated: roll again; a stage that still applies starts over, one that no longer does lets go. */
  restart(nowNs: number): void {
    const hit = this.roll();
    if (hit && this.hit) {
      this.inner.restart?.(nowNs);
      return;
    }
    if (hit === this.hit) return;
    const old = this.inner;
    if (old.release) old.release(nowNs);
    else old.drain(nowNs);
    old.destroy();
    this.hit = hit;
    this.inner = hit ? this.make() : passThrough(this.next);
  }
}
