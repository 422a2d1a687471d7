import { ConfigError } from '../errors.js';
import { parseLinkSpec, type LinkSpec } from '../link/link-spec.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { ListenerRole } from './topology.js';

/** `--node-link SELECTOR=LINK`: a link for the nodes a selector picks. */
export interface NodeLinkRule {
  readonly selector: string;
  readonly link: LinkSpec;
  /**
   * PUT /link: the settings it named, laid over the link the node has without it (its zone's, an
   * earlier rule's), not a whole link. Each chosen node kept its own other settings when it was
   * sent, so a node it picks later (after a failover) or again (at every topology refresh) must too.
   */
  readonly overlay?: boolean;
}

/** What a selector is matched against. */
export interface SelectableNode {
  readonly id: string;
  /** The real "host:port". */
  readonly upstream: string;
  readonly role: ListenerRole;
}

const SELECTOR_HELP = 'SELECTOR=LINK, SELECTOR a node address (host:port or [ipv6]:port), a node id prefix, masters, replicas or sentinels; LINK a preset or rtt=2ms/...';

/** Parses `SELECTOR=LINK` (the link may hold `=` itself: `masters=rtt=2ms`). */
export function parseNodeLink(text: string, flag = '--node-link'): NodeLinkRule {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new ConfigError(flag, text, SELECTOR_HELP);
  const selector = text.slice(0, eq).trim();
  checkSelector(selector, flag);
  const link = parseLinkSpec(text.slice(eq + 1), flag);
  if (link.direct) throw new ConfigError(flag, text, `${SELECTOR_HELP} (every node goes through the proxy: direct is not a node link)`);
  return { selector, link };
}

/**
 * The rule a PUT /link leaves for a selector: an overlay of the settings it named, at the values it
 * set (`rttUs` or a preset names both one-way delays, `loss` both losses), so every node it picks
 * keeps the rest of its own link. `next` is a chosen node's settings after it.
 */
export function putLinkRule(selector: string, update: LinkUpdate & { preset?: string }, next: LinkSettings): NodeLinkRule {
  const named = new Set<keyof LinkSettings>();
  for (const key of Object.keys(update)) {
    if (key === 'preset' || key === 'rttUs') named.add('upUs').add('downUs');
    else if (key === 'loss') named.add('lossUp').add('lossDown');
    else if (key in next) named.add(key as keyof LinkSettings);
  }
  const values: LinkUpdate = Object.fromEntries([...named].map((k) => [k, next[k]]));
  return { selector, overlay: true, link: { name: 'PUT /link', direct: false, update: values, rttUs: next.upUs + next.downUs } };
}

/**
 * Adds a PUT /link rule. The settings it names drop out of the earlier overlays with the same
 * selector (they pick the same nodes, and it comes after them), and an overlay left with none goes:
 * a script that PUTs a ramp every 100 ms would otherwise pile up rules each refresh walks through.
 */
export function addPutLinkRule(rules: NodeLinkRule[], rule: NodeLinkRule): void {
  const named = Object.keys(rule.link.update);
  for (let i = rules.length - 1; i >= 0; i--) {
    const r = rules[i]!;
    if (!r.overlay || r.selector !== rule.selector) continue;
    const left = Object.fromEntries(Object.entries(r.link.update).filter(([k]) => !named.includes(k)));
    if (Object.keys(left).length === 0) rules.splice(i, 1);
    else rules[i] = { ...r, link: { ...r.link, update: left } };
  }
  rules.push(rule);
}

/**
 * The selector of a PUT /link with no `?node=`: every node, those that join later (an added node,
 * a node back on a new address) too, as every node takes the toxics there are when it joins.
 * Internal: `--node-link` does not take it.
 */
export const EVERY_NODE = '*';

const ROLE_SELECTORS = new Set(['masters', 'replicas', 'sentinels']);
/** An IPv6 node address as typed everywhere else (`[::1]:6380`); a node's upstream holds it bare (`::1:6380`). */
const BRACKETED = /^\[([0-9a-f:.]+)\]:(\d+)$/i;

export function checkSelector(selector: string, flag: string): void {
  const ok = ROLE_SELECTORS.has(selector) || /^[^:\s]*:\d+$/.test(selector) || BRACKETED.test(selector) || /^[0-9a-f]{1,40}$/i.test(selector);
  if (!ok) throw new ConfigError(flag, selector, 'a node address (host:port or [ipv6]:port), a node id prefix (hex), masters, replicas or sentinels');
}

/** Roles are read at call time, so a role selector follows a failover. */
export function selects(selector: string, node: SelectableNode): boolean {
  if (selector === EVERY_NODE) return true;
  if (selector === 'masters') return node.role === 'master';
  if (selector === 'replicas') return node.role === 'replica';
  if (selector === 'sentinels') return node.role === 'sentinel';
  const v6 = BRACKETED.exec(selector);
  if (v6) return node.upstream === `${v6[1]}:${v6[2]}`;
  if (selector.includes(':')) return selector.startsWith(':') ? node.upstream.endsWith(selector) : node.upstream === selector;
  return node.id !== '' && node.id.toLowerCase().startsWith(selector.toLowerCase());
}

/**
 * One line per `--node-link` rule that picks none of `nodes` at start: a port or id typo would
 * leave the node meant on its zone or base link without a word. Said, not refused: a rule may be
 * meant for a node that joins later (an added node, a failover's new address), and it applies then.
 */
export function idleRuleWarnings(rules: readonly NodeLinkRule[], nodes: readonly SelectableNode[]): string[] {
  const known = [...new Set(nodes.map((n) => n.upstream))].join(', ');
  return rules
    .filter((r) => !nodes.some((n) => selects(r.selector, n)))
    .map((r) => `warning: --node-link ${r.selector}=${r.link.name} picks no node now (the nodes: ${known}); it applies to a node that matches it later`);
}

/**
 * The link a node gets: the last whole rule that selects it, else its zone's link (same when the
 * node sits in the client's zone, `clientZone`, 1 unless given), else the base link; then, in order,
 * the overlays (PUT /link) that select it and came after that rule. The name is the last match's.
 */
export function linkForNode(
  node: SelectableNode,
  zone: number | undefined,
  o: {
    base: LinkUpdate & { preset?: string };
    baseName: string;
    zones?: { same: LinkSpec; cross: LinkSpec };
    rules: readonly NodeLinkRule[];
    clientZone?: number;
  },
): { name: string; update: LinkUpdate & { preset?: string }; overlays: LinkUpdate[] } {
  const overlays: LinkUpdate[] = [];
  let lastName: string | undefined;
  for (let i = o.rules.length - 1; i >= 0; i--) {
    const r = o.rules[i]!;
    if (!selects(r.selector, node)) continue;
    lastName ??= r.link.name;
    if (!r.overlay) return { name: lastName, update: r.link.update, overlays };
    overlays.unshift(r.link.update);
  }
  if (o.zones && zone !== undefined) {
    const spec = zone === (o.clientZone ?? 1) ? o.zones.same : o.zones.cross;
    return { name: lastName ?? spec.name, update: spec.update, overlays };
  }
  return { name: lastName ?? o.baseName, update: o.base, overlays };
}
