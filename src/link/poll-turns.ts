import { openTurnHook, type TurnHook } from './native-alarm.js';

/**
 * How the scheduler's poll gets its event-loop turns: on the addon's turn hook, which makes no
 * garbage per turn, or a setImmediate per turn where the hook cannot be had (docs/precision.md,
 * "Poll turns without garbage").
 */
export class PollTurns {
  private hook: TurnHook | undefined;

  constructor(
    private readonly poll: () => void,
    useHook: boolean,
  ) {
    if (useHook) this.hook = openTurnHook(poll);
  }

  /** Poll in the next turn: on the hook, in every turn after it too, until `ended()`. */
  next(): void {
    if (this.hook) this.hook.start();
    else setImmediate(this.poll);
  }

  /** The poll asked for no further turn. */
  ended(): void {
    this.hook?.stop();
  }

  /** Gives the hook back; a run of turns under way (`running`) goes on with setImmediate. */
  close(running: boolean): void {
    if (this.hook === undefined) return;
    this.hook.close();
    this.hook = undefined;
    if (running) setImmediate(this.poll);
  }
}
