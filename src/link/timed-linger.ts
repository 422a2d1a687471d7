/**
 * Whether the scheduler keeps polling after a timed delivery. What follows a delivered reply is
 * usually a read: the client's next request, tens of microseconds later. A sleeping process pays
 * a wake-up for it, and on a VM a wake costs about as much CPU as polling through the gap and
 * makes the read late by its own lateness (docs/precision.md, "Lingering after a timed delivery").
 * The linger ends at that read (`Linger.read`, linger.ts).
 *
 * It lingers only when the timed delivery before was followed within the linger: a client that
 * thinks between requests would only be polled for. What came after is learned from time stamps
 * whether the scheduler lingered or slept, so it starts again once the traffic does. The caller
 * also asks that few timers fire (one connection), as the zero-delay linger does.
 */
export class TimedLinger {
  /** When the last poll turn that fired a timed delivery ended. */
  private firedEndNs = -Infinity;
  /** True from a timed delivery until the first activity after it. */
  private awaitingNext = false;
  /** Whether the activity after the last timed delivery came within `lingerNs`. */
  private followed = true;

  constructor(readonly lingerNs: number) {}

  /** Whether an activity at any time now would be the first after a timed delivery (see activity()). */
  get awaiting(): boolean {
    return this.awaitingNext;
  }

  /** A poll turn that fired timed deliveries ended at `nowNs`: whether to linger after it. */
  fired(nowNs: number): boolean {
    // Nothing came in since the timed delivery before: it was not followed.
    if (this.awaitingNext) this.followed = false;
    this.awaitingNext = true;
    this.firedEndNs = nowNs;
    return this.followed;
  }

  /** Something came in at `nowNs` (a read that was delivered or queued). */
  activity(nowNs: number): void {
    if (!this.awaitingNext) return;
    this.awaitingNext = false;
    this.followed = nowNs - this.firedEndNs <= this.lingerNs;
  }
}
