import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateCluster, startPrivateRedis, type PrivateCluster } from '../../src/redis/index.js';
import { findFreePort } from '../../src/redis/free-port.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { analyzeTrace } from '../../src/record/analyze.js';
import { readTrace } from '../../src/record/trace-reader.js';
import { runCli, runClis, startCliProxy } from '../hardening/helpers/cli-proxy.js';

const tracePath = join(mkdtempSync(join(tmpdir(), 'redis-rtt-cluster-cli-')), 'cli.trace');

const run = promisify(execFile);

// The ports in redis-cli's raw CLUSTER SLOTS output: each node is an IP line, then its port, then its id. A node id is
// hex, so a substring test could find a port's digits inside one; only whole lines after an address are ports.
function slotPorts(stdout: string): number[] {
  const lines = stdout.split('\n');
  return lines.flatMap((line, i) => (i > 0 && /^\d+\.\d+\.\d+\.\d+$/.test(lines[i - 1]!) ? [Number(line)] : []));
}
const portOf = (address: string): number => Number(address.split(':').at(-1));

interface NodeLine {
  id: string;
  upstream: string;
  listen: string;
  role: string;
  zone: number | null;
  link: string;
  linkSettings: { upUs: number; downUs: number };
}

// The real binary against one private cluster (needs `npm run build`, as the other CLI tests).
describe('redis-rtt proxy --cluster (the CLI)', () => {
  let cluster: PrivateCluster;
  beforeAll(async () => {
    cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 1 });
  }, 40_000);
  afterAll(async () => {
    await cluster?.stop();
    rmSync(dirname(tracePath), { recursive: true, force: true });
  });

  it('detects the cluster, prints every node in the listening line, zones and links; redis-cli -c stays behind it; /stats per node', async () => {
    const base = await findFreePort();
    const p = await startCliProxy([
      '--upstream', cluster.address, '--listen', '127.0.0.1:0', '--listen-ports', `${base}-${base + 20}`, '--control', '127.0.0.1:0',
      '--zones', '3', '--node-link', 'replicas=rtt=3ms', '--compensate', '0', '--record', tracePath,
    ]);
    let nodes: NodeLine[] = [];
    try {
      nodes = (p.line as unknown as { nodes: NodeLine[] }).nodes;
      expect(nodes).toHaveLength(6);
      expect(nodes[0]!.listen).toBe(p.line.listen);
      for (const n of nodes.slice(1)) {
        const port = Number(n.listen.split(':')[1]);
        expect(port).toBeGreaterThanOrEqual(base);
        expect(port).toBeLessThanOrEqual(base + 20);
      }
      for (const n of nodes) {
        expect(n.zone).toBeGreaterThanOrEqual(1);
        if (n.role === 'replica') expect(n.link).toBe('rtt=3ms');
        else expect(n.link).toBe(n.zone === 1 ? 'same-az' : 'cross-az');
      }
      const { stdout } = await run('redis-cli', ['-c', '-h', p.host, '-p', String(p.port), 'CLUSTER', 'SLOTS']);
      const ports = new Set(slotPorts(stdout));
      expect(ports).toEqual(new Set(nodes.map((n) => portOf(n.listen))));
      for (const c of cluster.nodes) expect(ports.has(c.port), String(c.port)).toBe(false);
      const stats = (await p.stats()) as unknown as { cluster: { nodes: { counters: { commands: number } }[]; rewrites: { slots: number } } };
      expect(stats.cluster.rewrites.slots).toBe(1);
      expect(stats.cluster.nodes[0]!.counters.commands).toBeGreaterThanOrEqual(1);
    } finally {
      expect((await p.stop('SIGINT')).code).toBe(0);
    }
    // The summary names every link the nodes run, not the seed's alone.
    const summaryLine = p.stderr().split('\n').find((l) => l.startsWith('connections ')) ?? '';
    expect(summaryLine).toMatch(/\blinks same-az up \S+ down \S+ \(1 node\), /);
    expect(summaryLine).toMatch(/, cross-az up \S+ down \S+ \(2 nodes\)/);
    expect(summaryLine).toMatch(/, rtt=3ms up 1\.5ms down 1\.5ms \(3 nodes\)/);
    // --record: the seed's connection in the trace, named by node; every node's link as it ended up.
    expect(p.stderr()).not.toContain('records nothing');
    const trace = await readTrace(tracePath);
    const a = analyzeTrace(trace);
    expect(a.nodes).toEqual([expect.objectContaining({ node: nodes[0]!.upstream, listen: nodes[0]!.listen, connections: 1, commands: 1 })]);
    for (const n of nodes) {
      const last = trace.nodeLinks!.filter((l) => l.node === n.upstream).at(-1);
      expect(last, n.upstream).toMatchObject({ listen: n.listen, link: { upUs: n.linkSettings.upUs, downUs: n.linkSettings.downUs } });
    }
  });

  it('--client-zones 2: the listening line gives each client zone its seed and its six listeners', async () => {
    const p = await startCliProxy(['--upstream', cluster.address, '--zones', '3', '--client-zones', '2', '--compensate', '0']);
    try {
      const zones = (p.line as unknown as { clientZones: { zone: number; seed: string; nodes: NodeLine[] }[] }).clientZones;
      expect(zones.map((z) => z.zone)).toEqual([1, 2]);
      // No --rtt or --preset given: the CLI's own defaults (--bandwidth 0, --jitter 0) are no link to warn about.
      expect(p.stderr()).not.toContain('is not used with --zones');
      expect(zones[0]!.seed).toBe(p.line.listen);
      for (const z of zones) {
        expect(z.seed).toBe(z.nodes[0]!.listen);
        expect(z.nodes.map((n) => Object.keys(n).sort().join())).toEqual(Array(6).fill('id,link,listen,role,upstream,zone'));
        for (const n of z.nodes) expect(n.link).toBe(n.zone === z.zone ? 'same-az' : 'cross-az');
      }
      const { stdout } = await run('redis-cli', ['-c', '-p', zones[1]!.seed.split(':')[1]!, 'CLUSTER', 'SLOTS']);
      expect(new Set(slotPorts(stdout))).toEqual(new Set(zones[1]!.nodes.map((n) => portOf(n.listen))));
    } finally {
      expect((await p.stop('SIGINT')).code).toBe(0);
    }
  });

  it('bench --cluster through the per-node links: every shape, round trips per node adding up, MGET/MSET in one round trip per batch', async () => {
    const r = await runCli(['bench', '--cluster', '--redis', cluster.address, '--links', 'rtt=1ms', '-n', '40', '--batch', '10', '--repeat', '1', '--format', 'json'], 60_000);
    expect(r.code, r.stderr).toBe(0);
    type Row = { shape: string; reads: string; roundTrips: number; usPerOp: number; perNode: { role: string; roundTrips: number }[] };
    const report = JSON.parse(r.stdout) as { rows: Row[] };
    expect(report.rows.map((x) => `${x.shape}/${x.reads}`)).toEqual([
      'seq SET/master', 'seq GET/master', 'seq GET/slave', 'pipeline SET/master', 'MSET {tag}/master', 'MGET {tag}/master',
    ]);
    for (const row of report.rows) {
      expect(row.perNode.reduce((s, x) => s + x.roundTrips, 0)).toBe(row.roundTrips);
      // Each node's round trips follow one another on its connection, each paying the 1 ms link;
      // a pipeline split over nodes waits on them in parallel, so the busiest node is the bound.
      const busiest = Math.max(...row.perNode.map((x) => x.roundTrips));
      expect(row.usPerOp * 40).toBeGreaterThanOrEqual(busiest * 1000 * 0.9);
    }
    const at = (shape: string, reads = 'master') => report.rows.find((x) => x.shape === shape && x.reads === reads)!;
    expect(at('seq GET').roundTrips).toBe(40);
    expect(at('seq GET', 'slave').perNode.filter((x) => x.roundTrips > 0).every((x) => x.role === 'replica')).toBe(true);
    expect(at('seq GET').perNode.filter((x) => x.roundTrips > 0).every((x) => x.role === 'master')).toBe(true);
    expect(at('MGET {tag}').roundTrips).toBe(4);
    // --format json leaves the table on stderr, as the single-node bench does (it printed none).
    expect(r.stderr).toMatch(/^config +shape +reads/m);
    // The progress lines name the reads as the table does (they said master and slave).
    expect(r.stderr).toMatch(/^redis-rtt: rtt=1ms seq GET \(replicas\) sample 1: \d+ us\/op$/m);
    expect(r.stderr).toMatch(/^redis-rtt: rtt=1ms MGET \{tag\} \(primaries\) sample warm-up: /m);
    expect(r.stderr).not.toMatch(/\((master|slave)\)/);
  });

  it('bench --cluster --format table prints the table on stdout (it went to stderr, as without --format); a link named twice runs once', async () => {
    const args = ['bench', '--cluster', '--redis', cluster.address, '--allow-nonempty', '--links', 'local,local', '-n', '6', '--batch', '3', '--repeat', '1'];
    const r = await runCli([...args, '--format', 'table'], 60_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^config +shape +reads/m);
    expect(r.stdout.match(/^local +MGET \{tag\} +primaries/gm)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/^config +shape/m);
  });

  it('bench --cluster --links direct exits 2 at once, no private cluster started (it started one, refused, and hung)', async () => {
    const r = await runCli(['bench', '--cluster', '--links', 'direct'], 10_000);
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('redis-rtt: --links: invalid value "direct"; expected a preset or rtt=.. spec per configuration');
  });

  it('--cluster on against a non-cluster Redis exits 2 with a clear message; bad cluster flags exit 2 naming the flag', { timeout: 120_000 }, async () => {
    const single = await startPrivateRedis();
    try {
      // Nor nodes to place in zones or pick by role: refused, not run with no link at all.
      const noNodes = [['--zones', '3'], ['--node-link', 'masters=cross-az'], ['--cluster', 'off', '--zones', '2']];
      const [r, z, ...byNode] = await runClis(
        [['--cluster', 'on'], ['--zones', '3', '--client-zones', '2'], ...noNodes].map((args) => ['proxy', '--upstream', single.address, ...args]),
      );
      expect(r!.code).toBe(2);
      expect(r!.stderr).toMatch(/--cluster: .*is not a cluster node \(INFO cluster says cluster_enabled:0\)/);
      // auto finds no cluster: one listener has no zones to split.
      expect(z!.code, z!.stderr).toBe(2);
      expect(z!.stderr).toMatch(/--client-zones: .*cluster or Sentinel mode only/);
      for (const [i, args] of noNodes.entries()) {
        const r1 = byNode[i]!;
        expect({ args, code: r1.code, stdout: r1.stdout }).toEqual({ args, code: 2, stdout: '' });
        expect(r1.stderr).toMatch(new RegExp(`${args.at(-2)}: invalid value "${args.at(-1)}"; expected cluster or Sentinel mode only .*give its link \\(--rtt, --preset\\)`));
      }
    } finally {
      await single.stop();
    }
    const badFlags = [
      ['--zones', ['--zones', '0']],
      ['--node-link', ['--node-link', 'everyone=rtt=1ms']],
      ['--listen-ports', ['--listen-ports', '9-1']],
      ['--cluster', ['--cluster', 'maybe']],
      ['--client-zones', ['--zones', '2', '--client-zones', '3']],
      ['--client-zones', ['--client-zones', '2']],
    ] as const;
    const badRuns = await runClis(badFlags.map(([, args]) => ['proxy', '--upstream', cluster.address, ...args]));
    for (const [i, [flag]] of badFlags.entries()) {
      const r = badRuns[i]!;
      expect(r.code, `${flag}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(flag);
    }
    // One range for every bad count, the one accepted ("abc" said "from 0 to 16", and 0 is refused).
    const counts = [['--zones', 'abc'], ['--zones', '0'], ['--client-zones', 'x'], ['--client-zones', '0']] as const;
    const runs = counts.flatMap(([flag, value]) => {
      const args = flag === '--zones' ? [flag, value] : ['--zones', '2', flag, value];
      const expected = [2, `redis-rtt: ${flag}: invalid value "${value}"; expected a whole number from 1 to 16\n`];
      return [['proxy', '--upstream', cluster.address], ['bench', '--cluster']].map(async (command) => {
        const r = await runCli([...command, ...args]);
        return { args: [...command, ...args], got: [r.code, r.stderr], expected };
      });
    });
    for (const r of await Promise.all(runs)) expect({ args: r.args, got: r.got }).toEqual({ args: r.args, got: r.expected });
  });
});
