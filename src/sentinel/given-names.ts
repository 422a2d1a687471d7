import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { nodeKey } from '../cluster/topology.js';
import type { RealAddress } from '../cluster/types.js';

/**
 * The --sentinel addresses given by name, under each address the name resolves to. Sentinels name
 * each other by the address they announce (an IP unless announce-hostnames), so without this a
 * sentinel given as `localhost:26379` and named `127.0.0.1:26379` by the others would get a second
 * listener, and its clients' traffic would be split between the two.
 */
export class GivenNames {
  private constructor(private readonly byAddress: ReadonlyMap<string, RealAddress>) {}

  /** Resolves every given host that is not an IP. A name that does not resolve is left as given: its reading says why. */
  static async resolve(given: readonly RealAddress[]): Promise<GivenNames> {
    const byAddress = new Map<string, RealAddress>();
    await Promise.all(
      given
        .filter((g) => isIP(g.host) === 0)
        .map(async (g) => {
          const found = await lookup(g.host, { all: true }).catch(() => []);
          for (const { address } of found) if (!byAddress.has(nodeKey(address, g.port))) byAddress.set(nodeKey(address, g.port), g);
        }),
    );
    // A sentinel given both ways (by name and by IP) keeps its IP: that is the one the others announce,
    // and the name stands for it (one listener, not one per spelling with its traffic split in two).
    for (const g of given) {
      const key = nodeKey(g.host, g.port);
      const name = byAddress.get(key);
      byAddress.delete(key);
      if (!name) continue;
      // The name's other addresses (::1 beside 127.0.0.1) with it.
      for (const [k, v] of byAddress) if (v === name) byAddress.set(k, g);
      byAddress.set(nodeKey(name.host, name.port), g);
    }
    return new GivenNames(byAddress);
  }

  /** The given address `a` stands for, or `a` itself. */
  canonical(a: RealAddress): RealAddress {
    return this.byAddress.get(nodeKey(a.host, a.port)) ?? a;
  }
}
