/**
 * The proxy's stages (its StageHost): one ordered list per chain (up bytes, down bytes, frames).
 * A change applies to every live connection at once and to every connection accepted later.
 */
import { ConfigError } from '../errors.js';
import { LINK_STAGE_NAME } from '../link/link-stage.js';
import { FRAME_CHAIN_NAME } from '../stage/frame-chain.js';
import { TLS_STAGE_NAME } from '../tls/tls-stage-pair.js';
import type { StageFactory, StageHost } from '../stage/types.js';

export type ChainKey = 'up' | 'down' | 'frame';

/** Names of the stages the proxy itself puts into a connection's chains. */
const RESERVED = [LINK_STAGE_NAME, FRAME_CHAIN_NAME, TLS_STAGE_NAME];

/** What a live connection offers ProxyStages. */
export interface StagedConnection {
  /** False when the stage cannot reach this live connection (a frame stage, no frame boundary known). */
  addStage(stage: StageFactory, indexInChain: number): boolean;
  removeStage(stage: StageFactory): void;
}

export function chainOf(stage: StageFactory): ChainKey {
  return stage.kind === 'frame' ? 'frame' : stage.direction;
}

export class ProxyStages implements StageHost {
  private readonly all: StageFactory[] = [];

  constructor(
    private readonly live: () => Iterable<StagedConnection>,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  addStage(stage: StageFactory, index?: number): void {
    check(stage);
    if (RESERVED.includes(stage.name) || this.all.some((s) => s.name === stage.name)) {
      throw new ConfigError('stage name', stage.name, `a name no other stage on this proxy has (nor ${RESERVED.map((n) => `"${n}"`).join(', ')})`);
    }
    const chain = this.chain(chainOf(stage));
    const at = index === undefined ? chain.length : Math.max(0, Math.min(Math.floor(index), chain.length));
    // Keep `all` in chain order: insert before the stage that is now at `at`, or last.
    const before = chain[at];
    this.all.splice(before === undefined ? this.all.length : this.all.indexOf(before), 0, stage);
    let missed = 0;
    for (const c of this.live()) if (!c.addStage(stage, at)) missed++;
    if (missed > 0) {
      this.log(
        `frame stage ${stage.name}: applies to connections accepted from now on, not to ${missed} live one(s) ` +
          'with no known frame boundary (--no-tap, or a stream the tap could not follow)',
      );
    }
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

/**
 * startProxy's `stages`, checked before anything listens: a bad one is named as the option's entry
 * (`stages[1]`, `stages[1].name`), not as addStage()'s argument.
 */
export function checkStagesOption(stages: readonly StageFactory[] | undefined): void {
  const dryRun = new ProxyStages(() => []);
  (stages ?? []).forEach((stage, i) => {
    try {
      dryRun.addStage(stage);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      throw new ConfigError(err.flag === 'stage name' ? `stages[${i}].name` : `stages[${i}]`, err.value, err.accepts);
    }
  });
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
