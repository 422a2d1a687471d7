import type { ToxicEnv } from '../toxics/types.js';
import { proxyAlreadyExists, proxyNotFound, badRequestBody, PopulateError, toApiError } from './api-error.js';
import { checkAddresses, ManagedProxy } from './managed-proxy.js';
import type { Scheduler } from '../stage/types.js';
import { parseProxyCreate } from './proxy-body.js';
import { goPopulateBody } from './go-json.js';


/**
 * The named proxies of one `redis-rtt server`. Changes run one at a time (starting a proxy awaits a
 * listen), so two requests can never create the same name or race a restart.
 */
export class ProxyCollection {
  private readonly proxies = new Map<string, ManagedProxy>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly removedListeners: ((p: ManagedProxy) => void)[] = [];

  constructor(
    private readonly env: ToxicEnv & { scheduler: Scheduler },
    private readonly log: (line: string) => void,
  ) {}

  /** Runs a change after every change before it. */
  serial<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  list(): ManagedProxy[] {
    return [...this.proxies.values()];
  }

  get(name: string): ManagedProxy {
    const p = this.proxies.get(name);
    if (!p) throw proxyNotFound();
    return p;
  }

  /** Creates a proxy from toxiproxy's JSON (a 400 ApiError when it is not valid). */
  async create(input: unknown, where = ''): Promise<ManagedProxy> {
    const { name, listen, upstream, enabled } = parseProxyCreate(input, where);
    if (this.proxies.has(name)) throw proxyAlreadyExists();
    // Also when created disabled: enabling it later must not be what finds the address bad.
    checkAddresses(listen, upstream);
    const p = new ManagedProxy(name, listen, upstream, this.env, this.log, () => this.list());
    if (enabled) await p.start();
    this.proxies.set(name, p);
    return p;
  }

  async remove(name: string): Promise<void> {
    const p = this.get(name);
    this.proxies.delete(name);
    for (const told of this.removedListeners) told(p);
    await p.stop();
  }

  /** Tells `fn` of each proxy removed (DELETE, or replaced by POST /populate), as it goes. */
  onRemoved(fn: (p: ManagedProxy) => void): void {
    this.removedListeners.push(fn);
  }

  /**
   * toxiproxy's populate: validate every entry first, then create each, or replace one of the same
   * name whose listen or upstream differs (an identical one is kept, toxics and all). A name given
   * twice is no error, as in toxiproxy (AddOrReplace): the later entry meets the earlier one as it
   * would a proxy made before, so the last one wins. The reply has one proxy per entry, in order, as
   * each is now: the same proxy twice when kept, the replaced one stopped.
   */
  async populate(input: unknown): Promise<ManagedProxy[]> {
    const body = goPopulateBody(input);
    if (!Array.isArray(body)) throw badRequestBody('expected a JSON array of proxies');
    const inputs = body.map((x, i) => parseProxyCreate(x, ` at proxy ${i + 1}`));
    const out: ManagedProxy[] = [];
    try {
      for (const i of inputs) {
        const old = this.proxies.get(i.name);
        if (old && (i.listen === '127.0.0.1:0' ? old.upstream === i.upstream : !(await old.differs(i.listen, i.upstream)))) {
          await old.update({ enabled: i.enabled });
          out.push(old);
          continue;
        }
        if (old) await this.remove(i.name);
        out.push(await this.create(i));
      }
    } catch (err) {
      // toxiproxy's error body lists what was populated before the failure.
      throw new PopulateError(toApiError(err), out);
    }
    return out;
  }

  /** POST /reset: every proxy enabled again, every toxic removed. */
  async reset(): Promise<void> {
    for (const p of this.proxies.values()) {
      p.resetToxics();
      await p.start();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.proxies.values()].map((p) => p.stop()));
  }
}
