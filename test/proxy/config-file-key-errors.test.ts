import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { configFiles } from '../helpers/config-files.js';
import { withFileKey } from '../../src/cli/file-key-errors.js';
import { runProgram } from '../../src/cli/main.js';
import { ConfigError, ListenError } from '../../src/errors.js';
import { runCli, runClis } from '../hardening/helpers/cli-proxy.js';

/**
 * A --config file's zones, cluster, upstreamUser, listenPorts or record.file that the start refuses
 * is named by the file and its key (`c1.json: zones: ...`), as its sentinel keys are: the start's
 * checks named --zones, --cluster, ... flags the user never typed. A trace the file names that
 * exists points at the file's record.overwrite, not at --record-overwrite. So is a listen or control
 * address already in use (the bind's error named --listen or --control), a control on 0.0.0.0 without a
 * token, upstreamTls to a unix socket, a controlToken with no control, and the upstream cluster mode refuses.
 */
describe('redis-rtt proxy --config: refused cluster, user and record keys are named by the key', () => {
  const files = configFiles('rtt-config-key-errors-');
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
    files.remove();
  });

  it('exit 2 naming file: key for a file value, and the flag for a typed one', { timeout: 60_000 }, async () => {
    const existing = join(files.dir, 'trace.jsonl');
    writeFileSync(existing, '');
    const base = { upstream: redis.address, listen: '127.0.0.1:0' };
    const cases: [object, string[], RegExp][] = [
      [{ ...base, zones: 3 }, [], /^redis-rtt: \S+\.json: zones: invalid value "3"; expected cluster or Sentinel mode only/m],
      [{ ...base, cluster: 'on' }, [], /^redis-rtt: \S+\.json: cluster: invalid value "on"; expected auto or off/m],
      [{ ...base, upstreamUser: 'rtt' }, [], /^redis-rtt: \S+\.json: upstreamUser: invalid value "rtt"; expected a password with it/m],
      [{ ...base, listenPorts: '7100-7110' }, [], /^redis-rtt: \S+\.json: listenPorts: invalid value "7100-7110"/m],
      [{ ...base, nodeLinks: ['replicas=same-az'] }, [], /^redis-rtt: \S+\.json: nodeLinks: invalid value "replicas=same-az"/m],
      [{ ...base, record: { file: existing } }, [], /^redis-rtt: \S+\.json: record\.file: invalid value "[^"]+"; expected a path that does not exist yet \(or set record\.overwrite to true\)$/m],
      // Checked by the start against the other options: a control on 0.0.0.0 with no token or host,
      // TLS to a unix socket.
      [{ ...base, control: '0.0.0.0:0' }, [], /^redis-rtt: \S+\.json: control: invalid value "0\.0\.0\.0"; expected a loopback address/m],
      [{ ...base, upstream: `unix:${files.dir}/r.sock`, upstreamTls: true }, [], /^redis-rtt: \S+\.json: upstreamTls: invalid value "[^"]+r\.sock"; expected a host:port upstream/m],
      // A token or hosts with no control to guard (the token not shown).
      [{ ...base, controlToken: 's3cret' }, [], /^redis-rtt: \S+\.json: controlToken: invalid value "\(redacted\)"; expected to be given with --control/m],
      // The file's hosts and a typed one: the flag with its own value (it showed the file's, "a").
      [{ ...base, allowHosts: ['a'] }, ['--allow-host', 'b'], /^redis-rtt: --allow-host: invalid value "b"; expected to be given with --control/m],
      // Typed on the command line: the flag, as before.
      [base, ['--zones', '3'], /^redis-rtt: --zones: invalid value "3"/m],
      [base, ['--record', existing], /^redis-rtt: --record: invalid value "[^"]+"; expected a path that does not exist yet \(or add --record-overwrite\)$/m],
      // No upstream in the file nor typed: the file is named as a place for it.
      [{ listen: '127.0.0.1:0' }, [], /^redis-rtt: --upstream: missing; expected host:port or unix:\/path of the Redis to proxy, given as the flag or as "upstream" in \S+\.json \(or --sentinel/m],
    ];
    const runs = await runClis(cases.map(([config, flags]) => ['proxy', '--compensate', '0', '--config', files.file(config), ...flags]));
    for (const [i, [config, flags, message]] of cases.entries()) {
      const r = runs[i]!;
      expect({ code: r.code, stdout: r.stdout }, JSON.stringify({ config, flags })).toEqual({ code: 2, stdout: '' });
      expect(r.stderr, JSON.stringify({ config, flags })).toMatch(message);
    }
  });

  it("the start's refusal of the file's upstream (cluster on to a unix socket) names the key; of a typed one, the flag", () => {
    const err = new ConfigError('--upstream', 'unix:/r.sock', 'host:port of a cluster node (--cluster on needs TCP)');
    expect((withFileKey(err, { config: 'p.json', fileKeys: { upstream: 'upstream' } }) as Error).message).toBe(
      'p.json: upstream: invalid value "unix:/r.sock"; expected host:port of a cluster node (--cluster on needs TCP)',
    );
    expect(withFileKey(err, { config: 'p.json', fileKeys: {} })).toBe(err);
  });

  it("the start's refusal of a step of the file's linkSchedule (over the link the flags give) names the key; of --link-schedule's, the flag", () => {
    const err = new ConfigError('--link-schedule steps[0].link.lossBurst', 1.2, 'a mean burst of at least 1.5 segments for a loss of 0.6');
    expect((withFileKey(err, { config: 'p.json' }) as Error).message).toBe(
      'p.json: linkSchedule steps[0].link.lossBurst: invalid value 1.2; expected a mean burst of at least 1.5 segments for a loss of 0.6',
    );
    expect(withFileKey(err, { config: 'p.json', linkSchedule: 's.json' })).toBe(err);
  });

  it("the file's link and the link flags refused together (a burst too short for the loss) name the burst's source", () => {
    // As normalizeProxyOptions says it: `link.lossBurst`, which is neither a flag nor the file's key.
    const err = new ConfigError('link.lossBurst', 1.2, 'a mean burst of at least 1.5 segments for a loss of 0.6');
    expect((withFileKey(err, { config: 'p.json', lossBurst: '1.2' }) as Error).message).toBe(
      '--loss-burst: invalid value "1.2"; expected a mean burst of at least 1.5 segments for a loss of 0.6',
    );
    expect((withFileKey(err, { config: 'p.json' }) as Error).message).toMatch(/^p\.json: link\.lossBurst: invalid value 1\.2; /);
  });

  it('a listen address that names nothing (ENOTFOUND) or an IPv6 link-local one without its %interface (EINVAL) exits 2, as bad usage', async () => {
    // They exited 1, a failure while running, though the address typed was at fault, as for one in use.
    const program = (err: Error): Command => {
      const p = new Command('t').exitOverride();
      p.command('run').action(() => {
        throw err;
      });
      return p;
    };
    const written: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (written.push(String(s)), true));
    try {
      const codes: number[] = [];
      for (const [at, code] of [['nowhere.invalid:0', 'ENOTFOUND'], ['[fe80::1]:0', 'EINVAL'], ['127.0.0.1:0', 'EMFILE']] as const) {
        codes.push(await runProgram(program(new ListenError(`--listen ${at}: listen ${code}`, code)), ['node', 't', 'run']));
      }
      // Out of descriptors is the machine's state, not the address: still a failure while running.
      expect(codes).toEqual([2, 2, 1]);
    } finally {
      write.mockRestore();
    }
    expect(written.join('')).toContain('redis-rtt: --listen [fe80::1]:0: listen EINVAL');
  });

  it('a listen or control address in use (or not to be had) is named by the key when the file gave it, by the flag when typed', { timeout: 30_000 }, async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const busy = `127.0.0.1:${(taken.address() as AddressInfo).port}`;
    try {
      const cases: [object, string[], string][] = [
        [{ upstream: redis.address, listen: busy }, [], `listen ${busy}: address already in use`],
        [{ upstream: redis.address, control: busy }, [], `control ${busy}: address already in use`],
        [{ upstream: redis.address }, ['--control', busy], `--control ${busy}: address already in use`],
      ];
      for (const [config, flags, message] of cases) {
        const path = files.file(config);
        const r = await runCli(['proxy', '--compensate', '0', '--config', path, ...flags]);
        expect({ code: r.code, stdout: r.stdout }, JSON.stringify({ config, flags })).toEqual({ code: 2, stdout: '' });
        const named = flags.length === 0 ? `${path}: ${message}` : message;
        expect(r.stderr.trim()).toBe(`redis-rtt: ${named}`);
      }
      // A socket in a folder that is not there is the address's fault too: exit 2 (it was 1), named by the key.
      const socket = `unix:${files.dir}/none/x.sock`;
      const path = files.file({ upstream: redis.address, listen: socket });
      const r = await runCli(['proxy', '--compensate', '0', '--config', path]);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
      expect(r.stderr.startsWith(`redis-rtt: ${path}: listen ${socket}: listen E`), r.stderr).toBe(true);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
