import type { RedisRttProxy } from '../proxy/types.js';
import type { StageFactory } from '../stage/types.js';
import type { ToxicControl, ToxicCount } from '../toxics/toxic-set.js';
import type { ToxicSpec } from '../toxics/types.js';
import type { ClientZones } from './client-zones.js';
import type { NodeStarter } from './node-starter.js';

/**
 * The part of a cluster (or Sentinel) proxy that fans out to every node's proxy: stages and toxics
 * go on each, and the seed's answers stand for all.
 */
export class NodeFanOut {
  constructor(
    protected readonly zones: ClientZones,
    protected readonly starter: NodeStarter,
  ) {}

  /** The seed node's proxy: the first opened, never closed before the cluster proxy. */
  protected get first(): RedisRttProxy {
    return this.zones.list()[0]!.proxy;
  }

  /** A stage added here runs on every node's connections (a toxic on the whole cluster), later nodes' too. */
  addStage(stage: StageFactory, index?: number): void {
    for (const n of this.zones.list()) n.proxy.addStage(stage, index);
    this.starter.addStage(stage);
  }
  removeStage(name: string): boolean {
    this.starter.removeStage(name);
    return this.zones.list().map((n) => n.proxy.removeStage(name)).some(Boolean);
  }
  listStages(): readonly StageFactory[] {
    return this.first.listStages();
  }

  // Toxics go on every node known now, and on a node first seen later (the starter keeps the list).
  // The seed's set goes first: a toxic it refuses (bad attributes, a name in use) reaches no node.
  addToxic(t: unknown): ToxicSpec {
    const [first, ...rest] = this.zones.list();
    const added = first!.proxy.addToxic(t);
    for (const n of rest) n.proxy.addToxic(added);
    this.starter.setToxics(this.toxics());
    return added;
  }
  updateToxic(name: string, change: { attributes?: unknown; toxicity?: unknown }): ToxicSpec | undefined {
    const [first, ...rest] = this.zones.list();
    const updated = first!.proxy.updateToxic(name, change);
    if (updated) for (const n of rest) n.proxy.updateToxic(name, change);
    this.starter.setToxics(this.toxics());
    return updated;
  }
  removeToxic(name: string): boolean {
    const removed = this.zones.list().map((n) => n.proxy.removeToxic(name)).some(Boolean);
    this.starter.setToxics(this.toxics());
    return removed;
  }
  toxics(): ToxicSpec[] {
    return this.first.toxics();
  }

  /** The control endpoint's /toxics over every node: what it applies to, and its counts summed over the nodes. */
  protected toxicControl(): ToxicControl {
    return {
      add: (t) => this.addToxic(t),
      update: (name, change) => this.updateToxic(name, change),
      remove: (name) => this.removeToxic(name),
      get: (name) => this.toxics().find((t) => t.name === name),
      list: () => this.toxics(),
      counts: () => this.toxicCounts(),
    };
  }

  /** Each toxic's applications summed over the nodes, in the seed's order. */
  protected toxicCounts(): ToxicCount[] {
    const sum = new Map(this.toxics().map((t) => [t.name, { name: t.name, type: t.type, stream: t.stream, applications: 0 }]));
    for (const n of this.zones.list()) for (const c of n.proxy.stats().toxics ?? []) if (sum.has(c.name)) sum.get(c.name)!.applications += c.applications;
    return [...sum.values()];
  }
}
