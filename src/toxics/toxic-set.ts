import { ConfigError } from '../errors.js';
import type { StageHost } from '../stage/types.js';
import { parseAttributes, parseToxicity, parseToxicSpec, type UnknownToxicKeys } from './spec.js';
import { absentAsUndefined } from './attributes.js';
import { isJsonObject } from '../validation/schema.js';
import { createToxic } from './toxic.js';
import type { Toxic, ToxicEnv, ToxicSpec } from './types.js';

/** What a toxic's application count looks like in /stats, /metrics and the server's stats. */
export interface ToxicCount {
  name: string;
  type: string;
  stream: string;
  /** Connections it applied to (byte toxics) or commands it matched (Redis-aware). */
  applications: number;
}

/** A second toxic with a name already in use (toxiproxy: 409 "toxic already exists"). */
export class ToxicExistsError extends ConfigError {
  constructor(name: string) {
    super('name', name, 'a name no other toxic on this proxy has');
  }
}

/** What the control endpoint's /toxics routes use: one proxy's ToxicSet, or a cluster's fan-out over its nodes' sets. */
export type ToxicControl = Pick<ToxicSet, 'add' | 'update' | 'remove' | 'get' | 'list' | 'counts'>;

/**
 * The toxics of one proxy, in order, and the stage host they run on while there is one (a server
 * proxy keeps its toxics while disabled and attaches them again when enabled).
 */
export class ToxicSet {
  private readonly toxics: Toxic[] = [];
  private host: StageHost | undefined;

  /**
   * `unknownKeys`: what a key that is no toxic's does, in a toxic or its attributes, added or updated.
   * toxiproxy's API (`redis-rtt server`) ignores it as its Go decoder does; a plain proxy's
   * addToxic(), updateToxic() and control endpoint refuse it, as its --toxic and startProxy({ toxics })
   * do: `{"latncy": 5}` would run a latency of 0 without a word.
   */
  constructor(
    private readonly env: ToxicEnv,
    private readonly unknownKeys: UnknownToxicKeys = 'ignore',
  ) {}

  /** Puts every toxic on `host` (after `before`, e.g. a framing stage, already there). */
  attach(host: StageHost): void {
    this.host = host;
    for (const t of this.toxics) host.addStage(t.stage);
  }

  detach(): void {
    this.host = undefined;
  }

  /**
   * Validates (ConfigError naming the field) and adds a toxic as toxiproxy's API takes it. As
   * toxiproxy (AddToxicJson), a name in use is refused before the attributes are read: a second
   * `latency` with bad attributes is 409, not 400.
   */
  add(input: unknown): ToxicSpec {
    let toxic: Toxic;
    try {
      toxic = createToxic(this.unknownKeys === 'refuse' ? parseToxicSpec(input, 'refuse') : input, this.env);
    } catch (err) {
      const name = err instanceof ConfigError && err.flag.startsWith('attributes') ? nameOf(input) : undefined;
      if (name !== undefined && this.get(name)) throw new ToxicExistsError(name);
      throw err;
    }
    if (this.get(toxic.spec.name)) throw new ToxicExistsError(toxic.spec.name);
    this.host?.addStage(toxic.stage);
    this.toxics.push(toxic);
    return { ...toxic.spec };
  }

  /** toxiproxy's update: attributes merge over the current ones; toxicity when given. Undefined when absent. */
  update(name: string, body: { attributes?: unknown; toxicity?: unknown }): ToxicSpec | undefined {
    const toxic = this.toxics.find((t) => t.spec.name === name);
    if (!toxic) return undefined;
    // A library caller's null threw a TypeError reading `.attributes` of it.
    if (!isJsonObject(body)) throw new ConfigError('toxic', body, 'a JSON object of attributes and toxicity, like {"attributes":{"latency":5}}');
    // A null (or absent) value leaves what was there, as toxiproxy's Go decoder leaves the field it
    // decodes into: `{"attributes":{"latency":null}}` keeps the latency, it does not reset it.
    if (!isAbsent(body.attributes) && !isJsonObject(body.attributes)) {
      throw new ConfigError('attributes', body.attributes, 'a JSON object');
    }
    const sent = isJsonObject(body.attributes) ? absentAsUndefined(body.attributes) : {};
    // The toxic as it would read after the change, checked for keys only: its name, type and stream stay.
    if (this.unknownKeys === 'refuse') parseToxicSpec({ ...body, ...toxic.spec, attributes: { ...toxic.spec.attributes, ...sent } }, 'refuse');
    const attributes = parseAttributes(toxic.spec.type, { ...toxic.spec.attributes, ...sent });
    const toxicity = isAbsent(body.toxicity) ? toxic.spec.toxicity : parseToxicity(body.toxicity);
    toxic.update(attributes, toxicity);
    return { ...toxic.spec };
  }

  /** False when no toxic has that name. */
  remove(name: string): boolean {
    const i = this.toxics.findIndex((t) => t.spec.name === name);
    if (i < 0) return false;
    const [toxic] = this.toxics.splice(i, 1);
    this.host?.removeStage(toxic!.spec.name);
    return true;
  }

  clear(): void {
    for (const t of [...this.toxics]) this.remove(t.spec.name);
  }

  get(name: string): ToxicSpec | undefined {
    const t = this.toxics.find((x) => x.spec.name === name);
    return t && { ...t.spec };
  }

  /** As toxiproxy lists them (GetToxicArray): the upstream ones, then the downstream ones, each in the order added. */
  list(): ToxicSpec[] {
    const inStream = (stream: string): ToxicSpec[] => this.toxics.filter((t) => t.spec.stream === stream).map((t) => ({ ...t.spec }));
    return [...inStream('upstream'), ...inStream('downstream')];
  }

  /** Zeroes every toxic's applications: a stats reset, as the tap's counters. */
  resetCounts(): void {
    for (const t of this.toxics) t.resetApplications();
  }

  counts(): ToxicCount[] {
    return this.toxics.map((t) => ({ name: t.spec.name, type: t.spec.type, stream: t.spec.stream, applications: t.applications }));
  }
}

/** The name a toxic whose type and stream parsed will have: its own, or `<type>_<stream>` as toxiproxy. */
function nameOf(input: unknown): string | undefined {
  if (!isJsonObject(input)) return undefined;
  if (typeof input.name === 'string' && input.name !== '') return input.name;
  return `${String(input.type)}_${typeof input.stream === 'string' ? input.stream : 'downstream'}`;
}

/** Absent or null: a field an update leaves as it was. */
function isAbsent(v: unknown): boolean {
  return v === undefined || v === null;
}
