/**
 * Runs one frame through the frame stages in order. Each stage's hook gives an action, or a promise
 * of one (the frame, and everything behind it, waits). `goesOn` says whether the next stage still
 * sees the frame. A hook that throws or rejects counts as "goes on unchanged": a broken stage must
 * not stall or kill the connection.
 */
import type { FrameStage } from './types.js';

export interface NamedFrameStage {
  readonly name: string;
  readonly stage: FrameStage;
}

/**
 * The last action, synchronously, when no stage returned a promise; otherwise undefined, and
 * `resume` gets the last action once all promises settled.
 */
export function runStages<A extends { kind: string }>(
  stages: readonly NamedFrameStage[],
  call: (s: FrameStage) => A | Promise<A> | undefined,
  goesOn: (a: A) => boolean,
  resume: (a: A) => void,
  onStep?: (a: A) => void,
  from = 0,
  last?: A,
): A | undefined {
  const list = from === 0 ? stages.slice() : stages;
  let action = last;
  for (let i = from; i < list.length; i++) {
    let r: A | Promise<A> | undefined;
    try {
      r = call(list[i]!.stage);
    } catch {
      r = undefined;
    }
    if (r === undefined) continue;
    if (typeof (r as Promise<A>).then === 'function') {
      (r as Promise<A>).then(
        (a) => step(a, i),
        () => step(undefined, i),
      );
      return undefined;
    }
    action = r as A;
    onStep?.(action);
    if (!goesOn(action)) return action;
  }
  return action ?? ({ kind: 'forward' } as unknown as A);

  function step(a: A | undefined, i: number): void {
    if (a !== undefined) {
      onStep?.(a);
      if (!goesOn(a)) return resume(a);
    }
    const next = runStages(list, call, goesOn, resume, onStep, i + 1, a ?? action);
    if (next !== undefined) resume(next);
  }
}
