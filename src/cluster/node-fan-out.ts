import type { RedisRttProxy } from '../proxy/types.js';
import type { StageFactory } from '../stage/types.js';
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

  // Toxics go on every node known now (a node first seen later starts without them).
  addToxic(t: unknown): ToxicSpec {
    return this.zones.list().map((n) => n.proxy.addToxic(t))[0]!;
  }
  updateToxic(name: string, change: { attributes?: unknown; toxicity?: unknown }): ToxicSpec | undefined {
    return this.zones.list().map((n) => n.proxy.updateToxic(name, change))[0];
  }
  removeToxic(name: string): boolean {
    return this.zones.list().map((n) => n.proxy.removeToxic(name)).some(Boolean);
  }
  toxics(): ToxicSpec[] {
    return this.first.toxics();
  }
}
