/**
 * A closed connection leaves nothing a young-generation collection must keep. Closed sockets and
 * what their callbacks reach survive scavenges on Node 24, and a JS Set that rehashes as
 * connections come and go chains its old tables to its new ones; a connection reachable either way
 * was promoted whole, and under connection churn each scavenge copied thousands of them
 * (docs/precision.md, "Closed connections and the scavenger"). The measurement runs in a plain Node
 * process (closed-connections.child.mjs): a ballast in a stage of each connection, and what two
 * scavenges after the churn could not free, per connection.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

const CHILD = resolve(import.meta.dirname, 'closed-connections.child.mjs');

interface Kept {
  keptPerConnection: number;
  ballastObjects: number;
  connections: number;
}

function measure(downUs: number): Promise<Kept> {
  return new Promise((done, fail) => {
    execFile(process.execPath, ['--expose-gc', CHILD, String(downUs)], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return fail(new Error(`${err.message}\n${stderr}`));
      done(JSON.parse(stdout) as Kept);
    });
  });
}

it.each([0, 200])('frees a closed connection, its stages and tap, in the young generation (down %i us)', async (downUs) => {
  const kept = await measure(downUs);
  expect(kept.connections).toBe(180);
  // A kept ballast would weigh at least 16 bytes an object; the bound is a quarter of that. Before
  // the fix 65-310 KB per connection stayed, after it 1-9 KB (Node 20 to 26, 2026-12-05).
  expect(kept.keptPerConnection).toBeLessThan(kept.ballastObjects * 4);
});
