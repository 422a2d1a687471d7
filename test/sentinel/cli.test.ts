import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { findFreePort } from '../../src/redis/free-port.js';
import { startPrivateSentinel, type PrivateSentinel } from '../../src/redis/private-sentinel.js';
import { runCli, runClis, startCliProxy } from '../hardening/helpers/cli-proxy.js';
import { controlRequest } from '../hardening/helpers/http.js';

const run = promisify(execFile);

// The ports one SENTINEL REPLICAS reply names, from redis-cli's raw output: RESP2 prints a field and its value on
// two lines, RESP3 on one. Timings such as down-after-milliseconds are numbers too, so only these fields are ports.
function replicaPorts(stdout: string, resp3: boolean): number[] {
  const lines = stdout.trim().split('\n');
  const pairs = resp3
    ? lines.map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)] as const)
    : lines.flatMap((l, i) => (i % 2 === 0 ? [[l, lines[i + 1] ?? ''] as const] : []));
  return pairs.flatMap(([field, value]) => {
    if (field === 'port' || field === 'master-port') return [Number(value)];
    return field === 'name' ? [Number(value.split(':').at(-1))] : [];
  });
}

interface NodeLine {
  upstream: string;
  listen: string;
  role: string;
  zone: number | null;
  link: string;
}

// The real binary against one private Sentinel setup (needs `npm run build`, as the other CLI tests).
describe('redis-rtt proxy --sentinel (the CLI)', () => {
  let setup: PrivateSentinel;
  beforeAll(async () => {
    setup = await startPrivateSentinel({ replicas: 2, sentinels: 3 });
  }, 30_000);
  afterAll(() => setup?.stop());

  it('lists sentinels and nodes with roles, zones and links in the listening line; redis-cli gets listener addresses in RESP2 and RESP3; /stats has the sentinel block', async () => {
    const [s1, s2, s3] = setup.sentinelAddresses;
    const p = await startCliProxy([
      ...['--sentinel', `${s1},${s2}`, '--sentinel', s3!, '--sentinel-master', 'mymaster', '--listen', '127.0.0.1:0', '--control', '127.0.0.1:0'],
      ...['--zones', '3', '--node-link', 'sentinels=rtt=3ms', '--compensate', '0'],
    ]);
    try {
      const line = p.line as unknown as { upstream: null; sentinels: string[]; sentinelMaster: string; nodes: NodeLine[] };
      expect(line).toMatchObject({ upstream: null, sentinels: [s1, s2, s3], sentinelMaster: 'mymaster' });
      const byRole = (role: string): NodeLine[] => line.nodes.filter((n) => n.role === role);
      expect(line.nodes[0]).toMatchObject({ upstream: s1, listen: p.line.listen, role: 'sentinel' });
      expect(byRole('sentinel').map((n) => [n.upstream, n.zone, n.link])).toEqual([
        [s1, 1, 'rtt=3ms'],
        [s2, 2, 'rtt=3ms'],
        [s3, 3, 'rtt=3ms'],
      ]);
      const primary = setup.nodes[0]!.address;
      expect(byRole('master').map((n) => [n.upstream, n.zone, n.link])).toEqual([[primary, 1, 'same-az']]);
      expect(byRole('replica').map((n) => [n.zone, n.link])).toEqual([
        [2, 'cross-az'],
        [3, 'cross-az'],
      ]);
      const master = byRole('master')[0]!;
      for (const proto of ['-2', '-3']) {
        const { stdout } = await run('redis-cli', [proto, '-h', p.host, '-p', String(p.port), 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster']);
        expect(stdout.trim().split('\n')).toEqual(master.listen.split(':'));
        const replicas = await run('redis-cli', [proto, '-h', p.host, '-p', String(p.port), 'SENTINEL', 'REPLICAS', 'mymaster']);
        const ports = new Set(replicaPorts(replicas.stdout, proto === '-3'));
        const listeners = [...byRole('master'), ...byRole('replica')].map((n) => Number(n.listen.split(':')[1]));
        expect([...ports].every((x) => listeners.includes(x)), [...ports].join()).toBe(true);
        expect(ports.size).toBe(3);
        const upstream = [...setup.nodes, ...setup.sentinels].map((n) => n.port);
        expect([...ports].filter((x) => upstream.includes(x))).toEqual([]);
      }
      type Stats = { sentinel: { primary: string; disagree: boolean; rewrites: Record<string, number> }; commands: Record<string, { count: number }> };
      const stats = (await p.stats()) as unknown as Stats;
      expect(stats.sentinel).toMatchObject({ primary, disagree: false, rewrites: { 'primary-address': 2, replicas: 2 } });
      // Named as CLUSTER's and CLIENT's subcommands are, not "?".
      expect(stats.commands['SENTINEL GET-MASTER-ADDR-BY-NAME']?.count).toBe(2);
      expect(stats.commands['SENTINEL REPLICAS']?.count).toBe(2);
      expect(stats.commands['?']).toBeUndefined();
      // PUT /link?node=sentinels changes the sentinels' links and no data node's; a selector that picks none names the one that would.
      const put = await controlRequest(p.line.control!, 'PUT', '/link?node=sentinels', { body: '{"rttUs": 5000}' });
      expect(put.status, put.body).toBe(200);
      const changed = (JSON.parse(put.body) as { nodes: NodeLine[] }).nodes.filter((n) => n.link === 'PUT /link').map((n) => n.upstream);
      expect(changed.sort()).toEqual([s1, s2, s3].sort());
      const after = (await p.stats()) as unknown as { cluster: { nodes: NodeLine[] } };
      expect(after.cluster.nodes.map((n) => [n.role, n.link])).toEqual(line.nodes.map((n) => [n.role, n.role === 'sentinel' ? 'PUT /link' : n.link]));
      const none = await controlRequest(p.line.control!, 'PUT', '/link?node=sentinel', { body: '{"rttUs": 5000}' });
      expect(none.status).toBe(400);
      expect(none.body).toContain('or sentinels in sentinel mode');
    } finally {
      expect((await p.stop('SIGINT')).code).toBe(0);
    }
  }, 40_000);

  it('bad input exits 2 naming the flag: no sentinel answers, an unknown master, --cluster on, --upstream with --sentinel, neither, a user without a password; with --print-config too', async () => {
    const nobody = `127.0.0.1:${await findFreePort()}`;
    const cases: [string[], RegExp][] = [
      [['--sentinel', nobody, '--sentinel-master', 'mymaster'], /--sentinel: .*a sentinel that answers/],
      [['--sentinel', setup.sentinelAddresses[0]!, '--sentinel-master', 'nope'], /--sentinel-master: invalid value "nope".*monitors mymaster/],
      [['--sentinel', setup.sentinelAddresses[0]!, '--sentinel-master', 'mymaster', '--cluster', 'on'], /--cluster: .*with --sentinel/],
      [['--sentinel', setup.sentinelAddresses[0]!, '--sentinel-master', 'mymaster', '--upstream', '127.0.0.1:6379'], /--upstream: .*no --upstream with --sentinel/],
      [['--sentinel', setup.sentinelAddresses[0]!], /--sentinel-master: .*the master name/],
      [[], /--upstream: .*or --sentinel/],
      // No password: AUTH cannot be sent, so the user would go unused.
      [['--sentinel', setup.sentinelAddresses[0]!, '--sentinel-master', 'mymaster', '--sentinel-user', 'rtt'], /--sentinel-user: invalid value "rtt"; expected a password with it \(REDIS_RTT_SENTINEL_PASSWORD/],
      [['--sentinel', setup.sentinelAddresses[0]!, '--sentinel-master', 'mymaster', '--sentinel-user', ''], /--sentinel-user: invalid value ""; expected an ACL user name/],
      // Sentinels are TCP only: the message offers no unix socket.
      [['--sentinel', '127.0.0.1:99999', '--sentinel-master', 'mymaster'], /--sentinel: invalid value "127.0.0.1:99999"; expected host:port or \[ipv6\]:port \(port 26379 if left out; sentinels are reached over TCP\)\n/],
      [['--sentinel', setup.sentinelAddresses[0]!, '--sentinel-master', 'mymaster', '--listen', 'unix:/tmp/rtt.sock'], /--listen: .*\(cluster and sentinel modes open one TCP listener per node\)/],
      // --print-config refuses what the start would.
      [['--sentinel', 'unix:/tmp/sentinel.sock', '--sentinel-master', 'mymaster', '--print-config'], /--sentinel: invalid value "unix:\/tmp\/sentinel.sock"; expected host:port/],
      [['--sentinel', setup.sentinelAddresses[0]!, '--sentinel-master', '', '--print-config'], /--sentinel-master: invalid value ""/],
    ];
    const runs = await runClis(cases.map(([args]) => ['proxy', '--listen', '127.0.0.1:0', ...args]));
    for (const [i, [args, message]] of cases.entries()) {
      const r = runs[i]!;
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(r.stderr).toMatch(message);
    }
  }, 60_000);
  it('--rtt with --zones says at start that it is not used: every node has its zone link', async () => {
    const args = ['--sentinel', setup.sentinelAddresses.join(','), '--sentinel-master', 'mymaster', '--listen', '127.0.0.1:0', '--compensate', '0'];
    const p = await startCliProxy([...args, '--zones', '3', '--rtt', '20ms', '--cross-zone-link', 'rtt=3ms']);
    try {
      const nodes = (p.line as unknown as { nodes: NodeLine[] }).nodes;
      expect(new Set(nodes.map((n) => n.link))).toEqual(new Set(['same-az', 'rtt=3ms']));
      expect(p.stderr()).toContain('the link given (--rtt, --preset, ...) is not used with --zones: each node takes --same-zone-link (same-az) or --cross-zone-link (rtt=3ms)');
    } finally {
      expect((await p.stop('SIGINT')).code).toBe(0);
    }
    // Without --zones the same --rtt is every node's link, and nothing is said.
    const plain = await startCliProxy([...args, '--rtt', '20ms']);
    try {
      expect(new Set((plain.line as unknown as { nodes: NodeLine[] }).nodes.map((n) => n.link))).toEqual(new Set(['link']));
      expect(plain.stderr()).not.toContain('is not used with --zones');
    } finally {
      expect((await plain.stop('SIGINT')).code).toBe(0);
    }
  }, 40_000);

  it('the note on --compensate auto offers only the calibration table: --compensate calibrate is refused in sentinel mode', async () => {
    const p = await startCliProxy(['--sentinel', setup.sentinelAddresses[0]!, '--sentinel-master', 'mymaster', '--listen', '127.0.0.1:0', '--rtt', '2ms']);
    try {
      await vi.waitFor(() => expect(p.stderr()).toContain("note: --compensate auto takes off the proxy's hop only"));
      expect(p.stderr()).toContain('use a `redis-rtt calibrate --json FILE` table (--compensate FILE)');
      expect(p.stderr()).not.toContain('--compensate calibrate');
    } finally {
      expect((await p.stop('SIGINT')).code).toBe(0);
    }
  }, 30_000);

  it('a given sentinel that does not answer at start is named on stderr; the others speak for the topology', async () => {
    const nobody = `127.0.0.1:${await findFreePort()}`;
    const p = await startCliProxy(['--sentinel', `${nobody},${setup.sentinelAddresses[0]!}`, '--sentinel-master', 'mymaster', '--listen', '127.0.0.1:0', '--compensate', '0']);
    try {
      const nodes = (p.line as unknown as { nodes: NodeLine[] }).nodes;
      expect(nodes.find((n) => n.role === 'master')?.upstream).toBe(setup.nodes[0]!.address);
      // The two sentinels only the reading named are sentinels too (role and rewrite stage), as the given ones.
      const sentinels = nodes.filter((n) => n.role === 'sentinel').map((n) => n.upstream);
      expect(sentinels.slice(0, 2)).toEqual([nobody, setup.sentinelAddresses[0]]);
      expect(sentinels.slice(2).sort()).toEqual(setup.sentinelAddresses.slice(1).sort());
      expect(p.stderr()).toMatch(new RegExp(`warning: sentinel ${nobody} \\(its listener is --listen\\) did not answer at start: .*ECONNREFUSED.*; its listener turns clients away until it does`));
    } finally {
      expect((await p.stop('SIGINT')).code).toBe(0);
    }
  }, 30_000);

  it('--listen-ports short of ports for the set exits 2 saying how many the whole set needs, not one group', async () => {
    // Five listeners from the range: two sentinels besides --listen's, the primary, two replicas. Opened a group at
    // a time, the start said 'the nodes need 3' (the sentinels' two held, one node short), and then 5 when given 3.
    // --listen inside the range, as a user may give it: the seed opens first (opened with the rest, a listener
    // taking from the range could take its port: '--listen 127.0.0.1:P: address already in use').
    const port = await findFreePort();
    const range = `${port}-${port + 2}`;
    const r = await runCli(['proxy', '--sentinel', setup.sentinelAddresses.join(','), '--sentinel-master', 'mymaster', '--listen', `127.0.0.1:${port}`, '--listen-ports', range]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toContain('--listen 127.0.0.1');
    // A port of the range another process holds (--listen's too) is counted apart: the need is 5 either way.
    expect(r.stderr).toMatch(new RegExp(`--listen-ports ${range}: no free port left for .*; the nodes need 5\\)`));
    expect(r.stderr.match(/no free port left for (.*) \(the range/)?.[1]?.split(', ').length).toBeGreaterThanOrEqual(3);
  }, 30_000);

  it('--print-config shows the sentinel password from REDIS_RTT_SENTINEL_PASSWORD as "(redacted)", as the other secrets', async () => {
    process.env.REDIS_RTT_SENTINEL_PASSWORD = 'pr1nt-s3cret';
    try {
      const args = ['--sentinel', setup.sentinelAddresses[0]!, '--sentinel-master', 'mymaster', '--sentinel-user', 'rtt', '--print-config'];
      const r = await runCli(['proxy', '--listen', '127.0.0.1:0', ...args]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ sentinels: [setup.sentinelAddresses[0]], sentinelUser: 'rtt', sentinelPassword: '(redacted)' });
      expect(r.stdout + r.stderr).not.toContain('pr1nt-s3cret');
    } finally {
      delete process.env.REDIS_RTT_SENTINEL_PASSWORD;
    }
  });

  it('a --config file holds sentinel mode: the --print-config output starts the same proxy; the keys check as the flags do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rtt-sentinel-config-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const printed = await runCli(['proxy', '--sentinel', setup.sentinelAddresses.join(','), '--sentinel-master', 'mymaster', '--listen', '127.0.0.1:0', '--print-config']);
    expect(printed.code, printed.stderr).toBe(0);
    const file = join(dir, 'sentinel.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(printed.stdout), sentinelRefreshMs: 100 }));
    const p = await startCliProxy(['--config', file, '--compensate', '0']);
    try {
      const line = p.line as unknown as { sentinels: string[]; nodes: NodeLine[] };
      expect(line.sentinels).toEqual(setup.sentinelAddresses);
      expect(line.nodes.filter((n) => n.role === 'sentinel').map((n) => n.upstream)).toEqual(setup.sentinelAddresses);
      expect(line.nodes.find((n) => n.role === 'master')?.upstream).toBe(setup.nodes[0]!.address);
    } finally {
      expect((await p.stop('SIGINT')).code).toBe(0);
    }
    const write = (o: object): string => {
      const f = join(dir, `${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(f, JSON.stringify(o));
      return f;
    };
    const base = { sentinels: [setup.sentinelAddresses[0]], sentinelMaster: 'mymaster' };
    // The file's password passes the check a user needs, and shows redacted.
    const withPassword = await runCli(['proxy', '--config', write({ ...base, sentinelUser: 'rtt', sentinelPassword: 'f1le-s3cret' }), '--print-config']);
    expect(withPassword.code, withPassword.stderr).toBe(0);
    expect(JSON.parse(withPassword.stdout)).toMatchObject({ sentinelUser: 'rtt', sentinelPassword: '(redacted)' });
    expect(withPassword.stdout).not.toContain('f1le-s3cret');
    const cases: [object, RegExp][] = [
      [{ ...base, sentinelUser: 'rtt' }, /\.json: sentinelUser: invalid value "rtt"; expected a password with it/],
      [{ upstream: setup.nodes[0]!.address, sentinelRefreshMs: 100 }, /\.json: sentinelRefreshMs: invalid value 100; expected to be used with sentinels/],
      [{ upstream: setup.nodes[0]!.address, sentinelPassword: 'x' }, /\.json: sentinelPassword: invalid value "\(redacted\)"; expected to be used with sentinels/],
      [{ ...base, sentinelRefreshMs: 5 }, /\.json: sentinelRefreshMs: invalid value 5; expected milliseconds, at least 10/],
      // Both in the file: named by its key, not the --upstream nobody typed.
      [{ ...base, upstream: setup.nodes[0]!.address }, /\.json: upstream: .*no --upstream with --sentinel/],
      [{ sentinels: [setup.sentinelAddresses[0]] }, /--sentinel-master: .*expected the master name/],
      // Cluster discovery's keys without a flag: --print-config printed them, and the start named the bare key.
      [{ ...base, topologyRefreshMs: 100 }, /\.json: topologyRefreshMs: invalid value 100; expected sentinelRefreshMs in sentinel mode/],
      [{ ...base, upstreamPassword: 'f1le-s3cret' }, /\.json: upstreamPassword: invalid value "\(redacted\)"; expected sentinelPassword in sentinel mode/],
    ];
    const runs = await runClis(cases.map(([config]) => ['proxy', '--config', write(config), '--print-config']));
    for (const [i, [config, message]] of cases.entries()) {
      const r = runs[i]!;
      expect({ code: r.code, stdout: r.stdout }, JSON.stringify(config)).toEqual({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(message);
    }
  }, 30_000);

  // Last in the file: it puts a password on the sentinels' default user, and takes it off after.
  it('sentinels with ACL auth: --sentinel-user and REDIS_RTT_SENTINEL_PASSWORD reach them; without the password it exits 2 naming it', async () => {
    const cli = (at: string, auth: string[], ...cmd: string[]) => {
      const [host, port] = at.split(':') as [string, string];
      return run('redis-cli', ['-h', host, '-p', port, ...auth, ...cmd]);
    };
    const asRtt = ['--user', 'rtt', '--pass', 's3cret', '--no-auth-warning'];
    for (const at of setup.sentinelAddresses) {
      expect((await cli(at, [], 'ACL', 'SETUSER', 'rtt', 'on', '>s3cret', '+@all', '~*', '&*')).stdout.trim()).toBe('OK');
      expect((await cli(at, [], 'ACL', 'SETUSER', 'default', 'resetpass', '>not-given')).stdout.trim()).toBe('OK');
    }
    const args = ['--sentinel', setup.sentinelAddresses.join(','), '--sentinel-master', 'mymaster', '--listen', '127.0.0.1:0'];
    try {
      expect((await cli(setup.sentinelAddresses[0]!, [], 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster')).stdout).toMatch(/NOAUTH/);
      const refused = await runCli(['proxy', ...args]);
      expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 2, stdout: '' });
      expect(refused.stderr).toMatch(/NOAUTH.*REDIS_RTT_SENTINEL_PASSWORD/);
      process.env.REDIS_RTT_SENTINEL_PASSWORD = 'wrong';
      const wrong = await runCli(['proxy', ...args, '--sentinel-user', 'rtt']);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(/AUTH failed: WRONGPASS.*check --sentinel-user and REDIS_RTT_SENTINEL_PASSWORD/);
      expect(wrong.stderr).not.toContain('wrong');
      process.env.REDIS_RTT_SENTINEL_PASSWORD = 's3cret';
      const p = await startCliProxy([...args, '--sentinel-user', 'rtt']);
      try {
        const master = (p.line as unknown as { nodes: NodeLine[] }).nodes.find((n) => n.role === 'master')!;
        expect(master.upstream).toBe(setup.nodes[0]!.address);
        // A client through the proxy authenticates as it would at the sentinel, and gets the proxy's address.
        const { stdout } = await run('redis-cli', ['-h', p.host, '-p', String(p.port), ...asRtt, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster']);
        expect(stdout.trim().split('\n')).toEqual(master.listen.split(':'));
        expect(p.stderr()).not.toContain('s3cret');
      } finally {
        expect((await p.stop('SIGINT')).code).toBe(0);
      }
    } finally {
      delete process.env.REDIS_RTT_SENTINEL_PASSWORD;
      for (const at of setup.sentinelAddresses) {
        await cli(at, asRtt, 'ACL', 'SETUSER', 'default', 'nopass');
        await cli(at, [], 'ACL', 'DELUSER', 'rtt');
      }
    }
  }, 60_000);
});
