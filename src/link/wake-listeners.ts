import type { WakeListener } from '../stage/types.js';

/**
 * Who hears of the scheduler's wakes from a sleep (`Scheduler.watchWakes`): the self-report's loop
 * monitor samples the event-loop delay there rather than waking the loop with a timer of its own.
 * The list is replaced, never changed in place, so a listener may stop itself while being called.
 */
export class WakeListeners {
  private listeners: readonly WakeListener[] = [];

  add(listener: WakeListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  woke(lateNs: number, nowNs: number): void {
    for (const listener of this.listeners) listener(lateNs, nowNs);
  }
}
