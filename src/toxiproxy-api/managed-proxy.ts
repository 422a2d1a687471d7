import { parseEndpoint } from '../proxy/endpoint.js';
import { startProxy, type RedisRttProxy } from '../proxy/index.js';
import { emptySnapshot } from '../proxy/registry-factory.js';
import { NO_DELAY } from '../link/types.js';
import type { FrameStageFactory, StageHost } from '../stage/types.js';
import type { StatsSnapshot } from '../stats/types.js';
import { parseAttributes, parseToxicity } from '../toxics/spec.js';
import { createToxic } from '../toxics/toxic.js';
import type { Toxic, ToxicEnv, ToxicSpec } from '../toxics/types.js';
import { badRequestBody, toxicAlreadyExists, toxicNotFound } from './api-error.js';

/** A proxy as toxiproxy's API shows it. */
export interface ProxyJson {
  name: string;
  listen: string;
  upstream: string;
  enabled: boolean;
  toxics: ToxicSpec[];
}

/** What a toxic's application count looks like in /proxies/{name}/stats and /metrics. */
export interface ToxicCount {
  name: string;
  type: string;
  stream: string;
  applications: number;
}

/**
 * One named proxy of `redis-rtt server`: a full redis-rtt proxy (tap, stats) while enabled, its
 * toxics as stages of that proxy's chain. Disabling closes the listener and every connection;
 * enabling starts a new proxy on the same address with the same toxics. Toxics outlive restarts.
 */
export class ManagedProxy {
  private handle: RedisRttProxy | undefined;
  private readonly toxics: Toxic[] = [];
  private lastStats: StatsSnapshot | undefined;

  constructor(
    readonly name: string,
    public listen: string,
    public upstream: string,
    private readonly env: ToxicEnv,
    private readonly log: (line: string) => void,
  ) {}

  get enabled(): boolean {
    return this.handle !== undefined;
  }

  /** The running proxy (for tests and the library). */
  get proxy(): RedisRttProxy | undefined {
    return this.handle;
  }

  async start(): Promise<void> {
    if (this.handle) return;
    parseEndpoint(this.upstream, 'upstream');
    parseEndpoint(this.listen, 'listen');
    const h = await startProxy({
      upstream: this.upstream,
      listen: this.listen,
      // toxiproxy adds nothing of its own to take off; no link delay, so no calibration at start.
      compensationUs: { up: 0, down: 0 },
      log: (line) => this.log(`${this.name}: ${line}`),
    });
    this.handle = h;
    this.listen = h.address;
    const host = stageHost(h);
    host?.addStage(FRAMING_STAGE);
    for (const t of this.toxics) host?.addStage(t.stage);
  }

  async stop(): Promise<void> {
    const h = this.handle;
    if (!h) return;
    this.handle = undefined;
    this.lastStats = h.stats();
    await h.close();
  }

  /** toxiproxy's ProxyUpdate: fields not given keep their values; a changed address restarts it. */
  async update(input: { listen?: string; upstream?: string; enabled?: boolean }): Promise<void> {
    const moved = (input.listen !== undefined && input.listen !== this.listen) || (input.upstream !== undefined && input.upstream !== this.upstream);
    const enabled = input.enabled ?? this.enabled;
    if (moved || !enabled) await this.stop();
    if (input.listen !== undefined) this.listen = input.listen;
    if (input.upstream !== undefined) this.upstream = input.upstream;
    if (enabled) await this.start();
  }

  toJSON(): ProxyJson {
    return { name: this.name, listen: this.listen, upstream: this.upstream, enabled: this.enabled, toxics: this.toxicSpecs() };
  }

  toxicSpecs(): ToxicSpec[] {
    return this.toxics.map((t) => ({ ...t.spec }));
  }

  getToxic(name: string): ToxicSpec {
    return { ...this.find(name).spec };
  }

  addToxic(input: unknown): ToxicSpec {
    const toxic = createToxic(input, this.env);
    if (this.toxics.some((t) => t.spec.name === toxic.spec.name)) throw toxicAlreadyExists();
    this.toxics.push(toxic);
    if (this.handle) stageHost(this.handle)?.addStage(toxic.stage);
    return { ...toxic.spec };
  }

  /** toxiproxy's ToxicUpdate: attributes merge over the current ones; toxicity when given. */
  updateToxic(name: string, body: unknown): ToxicSpec {
    const toxic = this.find(name);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequestBody('expected a JSON object');
    const b = body as { attributes?: unknown; toxicity?: unknown };
    if (b.attributes !== undefined && (typeof b.attributes !== 'object' || b.attributes === null || Array.isArray(b.attributes))) {
      throw badRequestBody('attributes: expected a JSON object');
    }
    const attributes = parseAttributes(toxic.spec.type, { ...toxic.spec.attributes, ...(b.attributes as object | undefined) });
    const toxicity = b.toxicity === undefined ? toxic.spec.toxicity : parseToxicity(b.toxicity);
    toxic.update(attributes, toxicity);
    return { ...toxic.spec };
  }

  removeToxic(name: string): void {
    const toxic = this.find(name);
    this.toxics.splice(this.toxics.indexOf(toxic), 1);
    if (this.handle) stageHost(this.handle)?.removeStage(toxic.spec.name);
  }

  resetToxics(): void {
    for (const t of [...this.toxics]) this.removeToxic(t.spec.name);
  }

  toxicCounts(): ToxicCount[] {
    return this.toxics.map((t) => ({ name: t.spec.name, type: t.spec.type, stream: t.spec.stream, applications: t.applications }));
  }

  /** The proxy's stats (the last ones while disabled) with each toxic's application count. */
  stats(): StatsSnapshot & { enabled: boolean; toxics: ToxicCount[] } {
    const s = this.handle?.stats() ?? this.lastStats;
    return { ...(s ?? emptyStats()), enabled: this.enabled, toxics: this.toxicCounts() };
  }

  private find(name: string): Toxic {
    const t = this.toxics.find((x) => x.spec.name === name);
    if (!t) throw toxicNotFound();
    return t;
  }
}

/**
 * A frame stage that does nothing. The chain frames only connections accepted while a frame stage
 * exists; toxiproxy users connect once and add toxics per test, so every connection here is framed
 * from the start and a Redis-aware toxic added later reaches it.
 */
const FRAMING_STAGE: FrameStageFactory = { kind: 'frame', name: 'redis-rtt:framing', create: () => ({}) };

/** The proxy handle's stage interface (src/stage/types.ts); undefined on a proxy without a chain. */
function stageHost(h: RedisRttProxy): StageHost | undefined {
  const s = h as RedisRttProxy & Partial<StageHost>;
  return typeof s.addStage === 'function' ? (s as unknown as StageHost) : undefined;
}

function emptyStats(): StatsSnapshot {
  return emptySnapshot({ ...NO_DELAY });
}
