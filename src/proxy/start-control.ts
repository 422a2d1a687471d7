import { bindPolicy } from '../http/guard.js';
import { HttpError } from '../http/json.js';
import { jitterFloorWarning } from '../link/jitter.js';
import type { ToxicSet } from '../toxics/toxic-set.js';
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

/** A single-node proxy's endpoint: the read side, PUT /link with the warnings the flags would log, and its toxics. */
export function singleNodeHandlers(
  p: Parameters<typeof readSideHandlers>[0] & Pick<RedisRttProxy, 'setLink'>,
  toxics: ToxicSet,
): ControlHandlers {
  return {
    ...readSideHandlers(p),
    setLink: (u, node) => {
      // One listener has no nodes to pick: a selector would be dropped, and the change made to the one link.
      if (node !== undefined) throw oneLinkOnly(node);
      const link = p.setLink(u);
      const warning = jitterFloorWarning(link);
      return { link, warnings: warning ? [warning] : [] };
    },
    linkOf: (node) => {
      throw oneLinkOnly(node);
    },
    statsOf: (node) => {
      throw oneLinkOnly(node);
    },
    toxics,
  };
}

/** ?node= on a proxy with one link (GET or PUT /link, GET /stats): refused, not read as "the link". */
function oneLinkOnly(node: string): HttpError {
  return new HttpError(400, `?node= picks nodes in cluster and Sentinel mode; this proxy has one link (got node=${node})`);
}
