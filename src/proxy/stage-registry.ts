/**
 * The proxy's stages (its StageHost): one ordered list per chain (up bytes, down bytes, frames).
 * A change applies to every live connection at once and to every connection accepted later.
 */
import { ConfigError } from '../errors.js';
import { LINK_STAGE_NAME } from '../link/link-stage.js';
import type { StageFactory, StageHost } from '../stage/types.js';

export type ChainKey = 'up' | 'down' | 'frame';

/** What a live connection offers the registry. */
export interface StagedConnection {
  addStage(stage: StageFactory, indexInChain: number): void;
  removeStage(stage: StageFactory): void;
}

export function chainOf(stage: StageFactory): ChainKey {
  return stage.kind === 'frame' ? 'frame' : stage.direction;
}

export class StageRegistry implements StageHost {
  private readonly all: StageFactory[] = [];

  constructor(private readonly live: () => Iterable<StagedConnection>) {}

  addStage(stage: StageFactory, index?: number): void {
    check(stage);
    if (stage.name === LINK_STAGE_NAME || this.all.some((s) => s.name === stage.name)) {
      throw new ConfigError('stage name', stage.name, 'a name no other stage on this proxy has (nor "link")');
    }
    const chain = this.chain(chainOf(stage));
    const at = index === undefined ? chain.length : Math.max(0, Math.min(Math.floor(index), chain.length));
    // Keep `all` in chain order: insert before the stage that is now at `at`, or last.
    const before = chain[at];
    this.all.splice(before === undefined ? this.all.length : this.all.indexOf(before), 0, stage);
    for (const c of this.live()) c.addStage(stage, at);
  }

  removeStage(name: string): boolean {
    const i = this.all.findIndex((s) => s.name === name);
    if (i < 0) return false;
    const [stage] = this.all.splice(i, 1);
    for (const c of this.live()) c.removeStage(stage!);
    return true;
  }

  listStages(): readonly StageFactory[] {
    return [...this.all];
  }

  chain(key: ChainKey): StageFactory[] {
    return this.all.filter((s) => chainOf(s) === key);
  }

  get hasFrameStages(): boolean {
    return this.all.some((s) => s.kind === 'frame');
  }
}

function check(stage: StageFactory): void {
  const ok =
    stage !== null &&
    typeof stage === 'object' &&
    typeof stage.name === 'string' &&
    stage.name.length > 0 &&
    typeof stage.create === 'function' &&
    (stage.kind === 'frame' || (stage.kind === 'byte' && (stage.direction === 'up' || stage.direction === 'down')));
  if (!ok) {
    throw new ConfigError('stage', (stage as { name?: unknown } | null)?.name, "{ kind: 'byte', name, direction: 'up'|'down', create } or { kind: 'frame', name, create }");
  }
}
