import type { ByteStageFactory, FrameStageFactory } from '../stage/types.js';
import type { ByteToxicDefinition, FrameToxicDefinition, ToxicFrameStage } from './definition.js';
import { RolledByteStage } from './rolled-stage.js';
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

  resetApplications(): void {
    this.applications = 0;
  }

  /** One toxicity roll. */
  protected hits(): boolean {
    const t = (this.spec.applied ?? this.spec).toxicity;
    return t >= 1 || (t > 0 && this.env.uniform() < t);
  }

  /** One toxicity roll; counts the application when it hits. */
  protected roll(): boolean {
    const hit = this.hits();
    if (hit) this.applications++;
    return hit;
  }
}

class ByteToxic extends LiveToxic {
  readonly stage: ByteStageFactory;
  /** This toxic's stage on each open connection, to restart on update. */
  private readonly live = new Set<RolledByteStage>();

  constructor(spec: ToxicSpec, def: ByteToxicDefinition, env: ToxicEnv) {
    super(spec, env);
    const direction = STREAM_DIRECTION[spec.stream];
    const forget = (s: RolledByteStage): void => void this.live.delete(s);
    this.stage = {
      kind: 'byte',
      name: spec.name,
      direction,
      create: (conn, next) => {
        const kept: Record<string, number> = {};
        const make = () => def.create({ conn, next, direction, scheduler: env.scheduler, uniform: env.uniform, attrs: this.attrs, kept });
        // A connection counts once, however often updates roll for it again.
        let counted = false;
        const roll = (): boolean => {
          const hit = this.hits();
          if (hit && !counted) this.applications++;
          counted ||= hit;
          return hit;
        };
        const stage = new RolledByteStage(next, make, roll, forget);
        this.live.add(stage);
        return stage;
      },
    };
  }

  /** As toxiproxy's UpdateToxic: every open connection rolls the toxicity again and restarts the toxic. */
  override update(attributes: Record<string, unknown>, toxicity: number): void {
    super.update(attributes, toxicity);
    const nowNs = this.env.scheduler.clock.nowNs();
    for (const s of [...this.live]) s.restart(nowNs);
  }
}

class FrameToxic extends LiveToxic {
  readonly stage: FrameStageFactory;
  /** Stages on open connections that act on an update (their connection's end forgets them). */
  private readonly live = new Set<ToxicFrameStage>();

  constructor(spec: ToxicSpec, def: FrameToxicDefinition, env: ToxicEnv) {
    super(spec, env);
    this.stage = {
      kind: 'frame',
      name: spec.name,
      create: (conn) => {
        const stage = def.create({
          conn,
          scheduler: env.scheduler,
          attrs: this.attrs,
          applies: () => this.roll(),
          sinceNs: () => this.sinceNs,
        });
        if (stage.restart) {
          this.live.add(stage);
          void conn.closed.then(() => this.live.delete(stage));
        }
        return stage;
      },
    };
  }

  override update(attributes: Record<string, unknown>, toxicity: number): void {
    super.update(attributes, toxicity);
    for (const s of [...this.live]) s.restart?.();
  }
}
