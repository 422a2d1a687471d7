import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawCommands } from '../../src/redis/index.js';
import { startPrivateSentinel, type PrivateSentinel } from '../../src/redis/private-sentinel.js';

describe('startPrivateSentinel', () => {
  let s: PrivateSentinel;
  beforeAll(async () => {
    s = await startPrivateSentinel({ replicas: 2, sentinels: 3 });
  }, 30_000);
  afterAll(() => s?.stop());

  it('every sentinel monitors the primary with the quorum, two replicas and two other sentinels; stop removes every process', async () => {
    const primary = s.nodes[0]!;
    for (const sentinel of s.sentinels) {
      const at = { kind: 'tcp' as const, host: '127.0.0.1', port: sentinel.port! };
      const [addr, replicas, peers, quorum] = await rawCommands(at, [
        ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster'],
        ['SENTINEL', 'REPLICAS', 'mymaster'],
        ['SENTINEL', 'SENTINELS', 'mymaster'],
        ['SENTINEL', 'CKQUORUM', 'mymaster'],
      ]);
      expect(addr!.items!.map((i) => i.text)).toEqual(['127.0.0.1', String(primary.port)]);
      expect(replicas!.items).toHaveLength(2);
      expect(peers!.items).toHaveLength(2);
      expect(quorum!.text).toMatch(/^OK 3 usable Sentinels/);
    }
    const pids = [...s.nodes, ...s.sentinels].map((p) => p.pid);
    await s[Symbol.asyncDispose](); // what `await using` calls: stop()
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  }, 20_000);
});
