import type { ByteStageFactory, FrameStageFactory } from '../stage/types.js';
import type { ByteToxicDefinition, FrameToxicDefinition } from './definition.js';
import { passThrough } from './definition.js';
import { TOXIC_TYPES } from './registry.js';
import { parseToxicSpec, withApplied } from './spec.js';
import { STREAM_DIRECTION, type Toxic, type ToxicEnv, type ToxicSpec } from './types.js';

/**
 * Builds a live toxic from a spec (or raw JSON, validated first). Byte toxics roll their toxicity
 * once per connection, as toxiproxy does; Redis-aware ones once per matching command.
 */
export function createToxic(input: ToxicSpec | unknown, env: ToxicEnv): Toxic {
  const spec = parseToxicSpec(input);
  const def = TOXIC_TYPES.get(spec.type)!;
  return def.kind === 'byte' ? new ByteToxic(spec, def, env) : new FrameToxic(spec, def, env);
}

abstract class LiveToxic implements Toxic {
  applications = 0;
  protected sinceNs: number;
  abstract readonly stage: ByteStageFactory | FrameStageFactory;

  constructor(
    public spec: ToxicSpec,
    protected readonly env: ToxicEnv,
  ) {
    this.sinceNs = env.scheduler.clock.nowNs();
  }

  update(attributes: Record<string, unknown>, toxicity: number): void {
    this.spec = withApplied({ ...this.spec, attributes, toxicity });
    this.sinceNs = this.env.scheduler.clock.nowNs();
  }

  /** The attributes the stage runs with (read on every chunk or command: they change live). */
  protected readonly attrs = (): Record<string, unknown> => (this.spec.applied ?? this.spec).attributes;

  /** One toxicity roll; counts the application when it hits. */
  protected roll(): boolean {
    const t = (this.spec.applied ?? this.spec).toxicity;
    const hit = t >= 1 || (t > 0 && this.env.uniform() < t);
    if (hit) this.applications++;
    return hit;
  }
}

class ByteToxic extends LiveToxic {
  readonly stage: ByteStageFactory;
  constructor(spec: ToxicSpec, def: ByteToxicDefinition, env: ToxicEnv) {
    super(spec, env);
    const direction = STREAM_DIRECTION[spec.stream];
    this.stage = {
      kind: 'byte',
      name: spec.name,
      direction,
      create: (conn, next) =>
        this.roll()
          ? def.create({ conn, next, direction, scheduler: env.scheduler, uniform: env.uniform, attrs: this.attrs })
          : passThrough(next),
    };
  }
}

class FrameToxic extends LiveToxic {
  readonly stage: FrameStageFactory;
  constructor(spec: ToxicSpec, def: FrameToxicDefinition, env: ToxicEnv) {
    super(spec, env);
    this.stage = {
      kind: 'frame',
      name: spec.name,
      create: (conn) =>
        def.create({
          conn,
          scheduler: env.scheduler,
          attrs: this.attrs,
          applies: () => this.roll(),
          sinceNs: () => this.sinceNs,
        }),
    };
  }
}
