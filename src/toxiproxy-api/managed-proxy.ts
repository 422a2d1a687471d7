import { isJsonObject } from '../validation/schema.js';
import { NO_DELAY } from '../link/types.js';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { formatEndpoint, parseEndpoint, parseRedisEndpoint, type Endpoint } from '../endpoint.js';
import { NetworkError } from '../errors.js';
import { startSingleNodeProxy, type RedisRttProxy } from '../proxy/index.js';
import { emptySnapshot } from '../stats/stats-collector.js';
import type { StatsSnapshot } from '../stats/types.js';
import { ToxicSet, type ToxicCount } from '../toxics/toxic-set.js';
import type { ToxicEnv, ToxicSpec } from '../toxics/types.js';
import { badRequestBody, toxicNotFound } from './api-error.js';
import { checkToxicEnvelope, goToxicBody, goToxicUpdateBody } from './go-json.js';
import type { Scheduler } from '../stage/types.js';

/** A proxy as toxiproxy's API shows it. */
export interface ProxyJson {
  name: string;
  listen: string;
  upstream: string;
  enabled: boolean;
  toxics: ToxicSpec[];
}

/**
 * A toxic as toxiproxy's API writes it: Go encodes its ToxicWrapper's fields in their declared
 * order (attributes, then name, type, stream, toxicity), so a client that compares the text sees
 * the same; `applied`, ours, comes last.
 */
export function toxicJson(t: ToxicSpec): ToxicSpec {
  const json = { attributes: t.attributes, name: t.name, type: t.type, stream: t.stream, toxicity: t.toxicity };
  return t.applied === undefined ? json : { ...json, applied: t.applied };
}

/**
 * One named proxy of `redis-rtt server`: a full redis-rtt proxy (tap, stats) while enabled, its
 * toxics as stages of that proxy's chain. Disabling closes the listener and every connection;
 * enabling starts a new proxy on the same address with the same toxics. Toxics outlive restarts.
 */
export class ManagedProxy {
  private handle: RedisRttProxy | undefined;
  private readonly toxics: ToxicSet;
  private lastStats: StatsSnapshot | undefined;

  constructor(
    readonly name: string,
    public listen: string,
    public upstream: string,
    private readonly env: ToxicEnv & { scheduler: Scheduler },
    private readonly log: (line: string) => void,
    /** Every proxy of the server (this one too): an address one of them holds is not free to another. */
    private readonly all: () => readonly ManagedProxy[],
  ) {
    this.toxics = new ToxicSet(env);
  }

  get enabled(): boolean {
    return this.handle !== undefined;
  }

  /** The running proxy (for tests and the library). */
  get proxy(): RedisRttProxy | undefined {
    return this.handle;
  }

  async start(): Promise<void> {
    if (this.handle) return;
    checkAddresses(this.listen, this.upstream);
    await this.refuseAddressOfAnother();
    let h: RedisRttProxy;
    try {
      h = await startSingleNodeProxy({
        upstream: this.upstream,
        listen: this.listen,
        // toxiproxy adds nothing of its own to take off; no link delay, so no calibration at start.
        compensationUs: { up: 0, down: 0 },
        scheduler: this.env.scheduler,
        log: (line) => this.log(`${this.name}: ${line}`),
      });
    } catch (err) {
      // The proxy's errors name its CLI flag; an API client sent the field.
      if (err instanceof NetworkError && err.message.startsWith('--listen ')) throw new NetworkError(err.message.slice(2), err.code);
      throw err;
    }
    this.handle = h;
    this.listen = h.address;
    this.toxics.attach(h);
  }

  /**
   * An enabled proxy of this server whose Redis is down has closed its listener until Redis answers
   * (docs/redis-down.md): the kernel would let this proxy bind its address, and that one, its Redis
   * back, would fail to listen for good (a log line every 50 ms). The address is still that proxy's,
   * as in toxiproxy, where its listener stays: the kernel's own refusal, a 500.
   */
  private async refuseAddressOfAnother(): Promise<void> {
    const at = parseEndpoint(await resolvedListen(this.listen), 'listen');
    if (at.kind === 'tcp' && at.port === 0) return;
    const holder = this.all().find((p) => p !== this && p.enabled && sameAddress(parseEndpoint(p.listen, 'listen'), at));
    if (holder) throw new NetworkError(`listen ${this.listen}: address already in use (by proxy ${holder.name})`, 'EADDRINUSE');
  }

  async stop(): Promise<void> {
    const h = this.handle;
    if (!h) return;
    this.handle = undefined;
    this.toxics.detach();
    // As toxiproxy: the connections close at once, what the link and toxics held dropped; the stats
    // taken after it count none of that as delivered.
    await h.close({ drain: false });
    this.lastStats = h.stats();
  }

  /**
   * Whether `listen` and `upstream` name another proxy than this one, as toxiproxy's Differs tells:
   * the listen address resolved first (`localhost:7070` is the proxy bound to 127.0.0.1:7070), the
   * upstream as text.
   */
  async differs(listen: string, upstream: string): Promise<boolean> {
    return upstream !== this.upstream || (listen !== this.listen && (await resolvedListen(listen)) !== this.listen);
  }

  /** toxiproxy's ProxyUpdate: fields not given keep their values; a changed address restarts it. */
  async update(input: { listen?: string; upstream?: string; enabled?: boolean }): Promise<void> {
    const listen = input.listen ?? this.listen;
    const upstream = input.upstream ?? this.upstream;
    // A bad address is refused before anything changes: the proxy stays as it was, enabled or not.
    checkAddresses(listen, upstream);
    const moved = await this.differs(listen, upstream);
    const enabled = input.enabled ?? this.enabled;
    if (moved || !enabled) await this.stop();
    // Not moved, the bound address stays as it reads (127.0.0.1:7070, not localhost:7070), as in toxiproxy.
    if (moved) {
      this.listen = listen;
      this.upstream = upstream;
    }
    if (enabled) await this.start();
  }

  toJSON(): ProxyJson {
    return { name: this.name, listen: this.listen, upstream: this.upstream, enabled: this.enabled, toxics: this.toxics.list().map(toxicJson) };
  }

  toxicSpecs(): ToxicSpec[] {
    return this.toxics.list();
  }

  getToxic(name: string): ToxicSpec {
    const t = this.toxics.get(name);
    if (!t) throw toxicNotFound();
    return t;
  }

  /** A toxic as the API's body sends it (read as toxiproxy's Go decoder reads it, checked in its order). */
  addToxic(input: unknown): ToxicSpec {
    const body = goToxicBody(input);
    checkToxicEnvelope(body);
    return this.toxics.add(body);
  }

  /** An update as the API's body sends it (read as toxiproxy's Go decoder reads it). */
  updateToxic(name: string, body: unknown): ToxicSpec {
    const fields = goToxicUpdateBody(body, this.getToxic(name).type);
    if (!isJsonObject(fields)) throw badRequestBody('expected a JSON object');
    return this.toxics.update(name, fields)!;
  }

  removeToxic(name: string): void {
    if (!this.toxics.remove(name)) throw toxicNotFound();
  }

  resetToxics(): void {
    this.toxics.clear();
  }

  /** The proxy's stats (the last ones while disabled) with each toxic's application count. */
  stats(): StatsSnapshot & { enabled: boolean; toxics: ToxicCount[] } {
    const s = this.handle?.stats() ?? this.lastStats ?? emptySnapshot({ ...NO_DELAY });
    return { ...s, enabled: this.enabled, toxics: this.toxics.counts() };
  }
}

/**
 * A proxy's addresses as the API takes them (a ConfigError naming the field, the API's 400): what
 * it listens on, as `proxy --listen` (port 0 = a free port), and the Redis, as `proxy --upstream`
 * (a bare host means port 6379). toxiproxy takes any string and fails at the listen or the dial.
 */
export function checkAddresses(listen: string, upstream: string): void {
  parseEndpoint(listen, 'listen');
  parseRedisEndpoint(upstream, 'upstream');
}

/**
 * Whether binding `b` would collide with `a` bound: the same socket path, or the same port on the
 * same host or under a wildcard (`::` is dual-stack in Node, so it covers IPv4 too; `0.0.0.0` only IPv4).
 */
function sameAddress(a: Endpoint, b: Endpoint): boolean {
  if (a.kind === 'unix' || b.kind === 'unix') return a.kind === b.kind && formatEndpoint(a) === formatEndpoint(b);
  const covers = (wild: string, host: string): boolean => wild === '::' || (wild === '0.0.0.0' && isIP(host) === 4);
  return a.port === b.port && (a.host === b.host || covers(a.host, b.host) || covers(b.host, a.host));
}

/**
 * A listen address as toxiproxy compares it (Go's net.ResolveTCPAddr for "tcp"): a host name as the
 * address it resolves to, IPv4 first; an address, a unix socket or a name that does not resolve as
 * given.
 */
async function resolvedListen(listen: string): Promise<string> {
  const e = parseEndpoint(listen, 'listen');
  if (e.kind !== 'tcp' || isIP(e.host) !== 0) return formatEndpoint(e);
  try {
    const { address } = await lookup(e.host, { family: 4 }).catch(() => lookup(e.host));
    return formatEndpoint({ ...e, host: address });
  } catch {
    return listen;
  }
}
