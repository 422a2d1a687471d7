import { addLossCounters, newLossCounters } from '../link/loss-model.js';
import type { LinkSettings } from '../link/types.js';
import { addCounters, newCounters } from '../tap/counters.js';
import type { CommandStats, StatsSnapshot } from '../stats/types.js';
import { exactLatencyTotals } from '../stats/merged-latency.js';
import type { ToxicCount } from '../toxics/toxic-set.js';
import { addTlsCounters, newTlsCounters, type TlsCounters } from '../tls/counters.js';

/**
 * Totals over the nodes' snapshots. Counters and command counts add up exactly; a command's
 * latency percentiles cannot be merged from summaries, so the merged entry carries those of the
 * node that served it most (each node's block has its own, exact). The loss model's counts add up
 * too, present when any node's are; so do toxic applications, by toxic name (every node has the
 * same toxics). So do the clients refused at --max-connections, present when the nodes have the cap.
 */
export function mergeSnapshots(parts: readonly StatsSnapshot[], link: LinkSettings): StatsSnapshot {
  const totals = newCounters();
  const commands: Record<string, CommandStats> = {};
  const busiest: Record<string, number> = {};
  let active = 0;
  let total = 0;
  // Present when any node has a --max-connections cap (every node has the same options).
  let refused: number | undefined;
  let tls: TlsCounters | undefined;
  let loss: StatsSnapshot['loss'];
  const toxics = new Map<string, ToxicCount>();
  for (const s of parts) {
    addCounters(totals, s.totals);
    if (s.tls) tls = addTlsCounters(tls ?? newTlsCounters(), s.tls);
    for (const t of s.toxics ?? []) {
      const into = toxics.get(t.name);
      if (into) into.applications += t.applications;
      else toxics.set(t.name, { ...t });
    }
    if (s.loss) {
      loss ??= { up: newLossCounters(), down: newLossCounters() };
      addLossCounters(loss.up, s.loss.up);
      addLossCounters(loss.down, s.loss.down);
    }
    active += s.connections.active;
    total += s.connections.total;
    if (s.connections.refused !== undefined) refused = (refused ?? 0) + s.connections.refused;
    for (const [name, c] of Object.entries(s.commands)) {
      const into = commands[name];
      if (!into) {
        commands[name] = { ...c };
        busiest[name] = c.count;
        continue;
      }
      into.count += c.count;
      into.errors += c.errors;
      if (c.count > busiest[name]!) {
        busiest[name] = c.count;
        into.serverUs = c.serverUs;
        into.clientUs = c.clientUs;
      }
    }
  }
  const toxicCounts = toxics.size > 0 ? { toxics: [...toxics.values()] } : {};
  const exact = exactLatencyTotals(commands, parts);
  const connections = { active, total, ...(refused === undefined ? {} : { refused }) };
  return { totals, commands: exact, connections, link, ...(tls ? { tls } : {}), ...(loss ? { loss } : {}), ...toxicCounts };
}
