import { bindPolicy } from '../http/guard.js';
import { ControlServer, type ControlHandlers } from './control.js';
import { parseEndpoint, type Endpoint } from '../endpoint.js';
import type { ProxyOptions, RedisRttProxy } from './types.js';
import { renderPrometheus } from '../stats/prometheus.js';
import { toxicFamily } from '../toxics/metrics.js';

/** Where --control listens and who may call it, checked before any listener opens. */
export interface ControlPlan {
  at: Endpoint;
  access: { token?: string; allowHosts?: readonly string[] };
  /** Logged when the endpoint starts: it is reachable from other machines. */
  warning?: string;
}

/**
 * --control's address and policy: a ConfigError now for a bad address, or a wildcard bind with
 * neither --allow-host nor a token. Undefined without --control.
 */
export function planControl(o: Pick<ProxyOptions, 'control' | 'controlToken' | 'allowHosts'>): ControlPlan | undefined {
  if (o.control === undefined) return undefined;
  const at = parseEndpoint(o.control, '--control');
  const access = { token: o.controlToken, allowHosts: o.allowHosts };
  const warning = bindPolicy({ bound: at.kind === 'tcp' ? at : { kind: 'unix' }, ...access }, '--control');
  return { at, access, warning };
}

/**
 * The control endpoint of a proxy, single-node or cluster: the same routes and guard, the mode's
 * own handlers. Undefined without a plan. A listen failure rejects (a NetworkError naming
 * --control); the caller closes what it had started.
 */
export async function startControl(
  plan: ControlPlan | undefined,
  handlers: ControlHandlers,
  log: (line: string) => void,
): Promise<ControlServer | undefined> {
  if (plan === undefined) return undefined;
  if (plan.warning) log(`warning: ${plan.warning}`);
  const control = new ControlServer(handlers, plan.access, log);
  await control.listen(plan.at);
  return control;
}

/**
 * The handlers every proxy's control endpoint serves from its read side, one node or a cluster:
 * /stats, the dashboard's histograms, /metrics (with its toxics' counts), POST /reset, /connections.
 */
export function readSideHandlers(
  p: Pick<RedisRttProxy, 'stats' | 'commandLatencyUs' | 'resetStats' | 'connections'>,
): Pick<ControlHandlers, 'stats' | 'commandLatencyUs' | 'metrics' | 'reset' | 'connections'> {
  return {
    stats: () => p.stats(),
    commandLatencyUs: () => p.commandLatencyUs(),
    metrics: () => {
      const s = p.stats();
      return renderPrometheus(s, [toxicFamily(s.toxics ?? [])]);
    },
    reset: () => p.resetStats(),
    connections: () => p.connections(),
  };
}
