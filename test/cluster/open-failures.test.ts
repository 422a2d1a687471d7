import { describe, expect, it } from 'vitest';
import { OpenFailures } from '../../src/cluster/open-failures.js';
import { NetworkError } from '../../src/errors.js';

const at = (port: number) => ({ host: '127.0.0.1', port });
const full = new NetworkError('--listen-ports 9001-9005: no free port left', 'EADDRINUSE');

describe('a node that cannot get a listener, named by reply after reply', () => {
  it('is said once until it has a listener, then once again if it loses the race for a port again', () => {
    const lines: string[] = [];
    const f = new OpenFailures((l) => lines.push(l));
    for (let i = 0; i < 5; i++) f.failed([at(7006)], full);
    f.failed([at(7006), at(7007)], full);
    expect(lines).toEqual([
      'could not open a listener for 127.0.0.1:7006: --listen-ports 9001-9005: no free port left; replies name it by its real address until it has one',
      'could not open a listener for 127.0.0.1:7007: --listen-ports 9001-9005: no free port left; replies name it by its real address until it has one',
    ]);
    // What /stats cluster.withoutListener shows: the nodes replies name by their real address.
    expect(f.nodes()).toEqual(['127.0.0.1:7006', '127.0.0.1:7007']);
    f.opened(at(7006));
    expect(f.nodes()).toEqual(['127.0.0.1:7007']);
    f.failed([at(7006), at(7007)], full);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^could not open a listener for 127\.0\.0\.1:7006: /);
  });

  it('with --client-zones, is listed while any zone\'s listener for it is missing, and said once per zone', () => {
    const lines: string[] = [];
    const f = new OpenFailures((l) => lines.push(l));
    // One port came free: zone 1 took it; zone 2's and zone 3's replies still name the node's real address.
    f.failed([at(7006)], full, 2);
    f.failed([at(7006)], full, 3);
    f.opened(at(7006), 1);
    expect(f.nodes()).toEqual(['127.0.0.1:7006']);
    f.failed([at(7006)], full, 2);
    const why = ': --listen-ports 9001-9005: no free port left; replies name it by its real address until it has one';
    expect(lines).toEqual([`could not open a listener for 127.0.0.1:7006 (client zone 2)${why}`, `could not open a listener for 127.0.0.1:7006 (client zone 3)${why}`]);
    f.opened(at(7006), 2);
    f.opened(at(7006), 3);
    expect(f.nodes()).toEqual([]);
  });

  it('leaves the list when a topology reading no longer names it, by address or by announced hostname', () => {
    const f = new OpenFailures(() => {});
    f.failed([at(7006), at(7007), { host: 'node-8.example', port: 7008 }], full);
    const named = (port: number, hostname?: string) => ({ ...at(port), id: `id${port}`, hostname, role: 'master' as const, masterId: undefined, firstSlot: undefined, myself: false, unusable: false });
    f.reading([named(7000), named(7007), named(7008, 'node-8.example')]);
    expect(f.nodes()).toEqual(['127.0.0.1:7007', 'node-8.example:7008']);
  });
});
