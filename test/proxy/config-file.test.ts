/**
 * `redis-rtt proxy --config FILE`: the file's options under the flags given (single-valued flags
 * win, repeatable ones append, the link merges key by key), --print-config with secrets redacted,
 * and a bad file refused with the key path named and exit 2; the --no-X flags (--no-control, --no-record, ...)
 * drop the file's key.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { mergeProxyConfig, readProxyConfig } from '../../src/cli/proxy-config.js';
import { startPrivateRedis } from '../../src/redis/index.js';
import { runCli, startCliProxy } from '../hardening/helpers/cli-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (content: unknown): string => {
  const path = join(dir, `c${++n}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

const CONFIG = {
  $schema: './node_modules/redis-rtt/docs/proxy-options.schema.json',
  upstream: '127.0.0.1:6379',
  listen: '127.0.0.1:6380',
  control: '127.0.0.1:0',
  controlToken: 's3cret',
  allowHosts: ['dash.local'],
  link: { preset: 'cross-az', jitterUs: 100 },
  toxics: [{ type: 'latency', attributes: { latency: 1 } }],
  nodeLinks: ['masters=same-az'],
  highWaterBytes: 1048576,
  record: { file: join(dir, 'trace.jsonl'), keys: 'hashed' },
};

describe('mergeProxyConfig', () => {
  const sources = (cli: string[]) => ({ getOptionValueSource: (k: string) => (cli.includes(k) ? 'cli' : 'default') });

  it('takes the file for flags left at their defaults, the flag where one is given, repeatables appended', () => {
    const flags = { listen: '127.0.0.1:7000', highWater: '4mib', allowHost: ['other'], nodeLink: [], jitter: '0', jitterDist: 'uniform', rtt: '5ms', recordKeys: 'none' };
    const { flags: f, file } = mergeProxyConfig(flags, sources(['listen', 'allowHost', 'rtt']), { ...CONFIG });
    expect(f).toMatchObject({ listen: '127.0.0.1:7000', upstream: '127.0.0.1:6379', highWater: '1048576', allowHost: ['dash.local', 'other'], nodeLink: ['masters=same-az'] });
    expect(f).toMatchObject({ jitter: undefined, jitterDist: undefined, rtt: '5ms', record: CONFIG.record.file, recordKeys: 'hashed' });
    expect(file).toEqual({ $schema: CONFIG.$schema, link: CONFIG.link, toxics: CONFIG.toxics });
    // A --preset on the command line replaces the file's whole link.
    expect(mergeProxyConfig({ preset: 'local' }, sources(['preset']), { link: { rttUs: 9 } }).file).toEqual({});
  });

  it('a --record naming another file does not take the file\'s overwrite (its own keys and maxBytes it does)', () => {
    const record = { file: join(dir, 'shared.jsonl'), overwrite: true, keys: 'hashed', maxBytes: 5000 };
    const mine = mergeProxyConfig({ record: join(dir, 'mine.jsonl'), recordKeys: 'none' }, sources(['record']), { record }).flags;
    // It replaced an existing mine.jsonl that the user had never said could go.
    expect(mine).toMatchObject({ record: join(dir, 'mine.jsonl'), recordKeys: 'hashed', recordMaxBytes: '5000' });
    expect(mine).not.toHaveProperty('recordOverwrite');
    const same = mergeProxyConfig({ record: join(dir, '.', 'shared.jsonl'), recordKeys: 'none' }, sources(['record']), { record }).flags;
    expect(same).toMatchObject({ recordOverwrite: true });
  });

  it('a --no-X drops the file\'s key and the keys that serve only it, its attribute left unset', () => {
    const config = { ...CONFIG, statsJson: 's.json', rttWave: 'sine:60s:2ms', linkSchedule: [], rttSeries: '0,1', rttSeriesOnce: true };
    const negated = ['control', 'record', 'statsJson', 'toxics', 'rttWave', 'linkSchedule', 'rttSeries'];
    const flags = { ...Object.fromEntries(negated.map((attr) => [attr, false])), allowHost: [], nodeLink: [], recordKeys: 'none' };
    const { flags: f, file } = mergeProxyConfig(flags, sources(negated), config);
    for (const attr of negated) expect(f, attr).toHaveProperty(attr, undefined);
    expect(f).toMatchObject({ allowHost: [], recordKeys: 'none' });
    expect(f).not.toHaveProperty('controlToken');
    expect(f).not.toHaveProperty('rttSeriesOnce');
    expect(file).toEqual({ $schema: CONFIG.$schema, link: CONFIG.link });
    // A flag that serves only the control endpoint is refused beside --no-control, the token not shown.
    const token = () => mergeProxyConfig({ control: false, controlToken: 'tok', allowHost: [] }, sources(['control', 'controlToken']), config);
    expect(token).toThrow(/^--control-token: invalid value "\(redacted\)"; expected to be used with --control, not --no-control/);
  });

  it('names the file and the key path of a bad value, an unknown key, or a file that is not JSON', async () => {
    const refusal = (path: string) => readProxyConfig(path).then(() => undefined, (e: ConfigError) => e.flag);
    expect(await refusal(file('{"upstream": '))).toBe('--config');
    const unknown = file({ upstream: 'x:1', lnk: {} });
    expect(await refusal(unknown)).toBe(`${unknown}: lnk`);
    const badLink = file({ link: { rttUs: -5 } });
    expect(await refusal(badLink)).toBe(`${badLink}: link.rttUs`);
    // A misspelled link key is refused, not dropped (the proxy would run with no delay).
    const misspelled = file({ link: { rtt: 5 } });
    expect(await refusal(misspelled)).toBe(`${misspelled}: link.rtt`);
    await expect(readProxyConfig(misspelled)).rejects.toThrow(/expected a link key: rttUs, upUs, downUs/);
    const badToxic = file({ toxics: [{ type: 'latency', attributes: { latency: '1' } }] });
    expect(await refusal(badToxic)).toBe(`${badToxic}: toxics[0].attributes.latency`);
    // Text the schema takes as a string is read at once too, and named by its key.
    const badWave = file({ rttWave: 'bogus' });
    expect(await refusal(badWave)).toBe(`${badWave}: rttWave`);
    const badSchedule = file({ linkSchedule: [{ at: '1s' }] });
    expect(await refusal(badSchedule)).toBe(`${badSchedule}: linkSchedule steps[0]`);
    const badSeries = file({ rttSeries: '0,5\n1,x' });
    expect(await refusal(badSeries)).toBe(`${badSeries}: rttSeries line 2`);
    // A file name where the series itself goes: said so, with the name as written.
    const seriesFile = file({ rttSeries: 'ping.txt' });
    await expect(readProxyConfig(seriesFile)).rejects.toThrow(
      new RegExp(`^${seriesFile}: rttSeries: invalid value "ping\\.txt"; expected .* \\(the text of the series, not a file name: --rtt-series FILE reads a file\\)$`),
    );
    // The addresses too, by the parsers their flags use.
    for (const [key, value] of [['upstream', '127.0.0.1:0'], ['listen', 'here'], ['control', 'h:99999']] as const) {
      const badAddress = file({ upstream: '127.0.0.1:6379', [key]: value });
      expect(await refusal(badAddress)).toBe(`${badAddress}: ${key}`);
    }
    // The links and hosts too, by the parsers their flags use, whatever mode the start would be in.
    const badLinksAndHosts: [string, unknown, string][] = [
      ['sameZoneLink', 'bogus', 'sameZoneLink'],
      ['crossZoneLink', 'rtt=fast', 'crossZoneLink rtt='],
      ['nodeLinks', ['masters=same-az', 'x'], 'nodeLinks[1]'],
      ['nodeLinks', ['masters=direct'], 'nodeLinks[0]'],
      ['allowHosts', ['dash.local', 'a b'], 'allowHosts[1]'],
    ];
    for (const [key, value, named] of badLinksAndHosts) {
      const bad = file({ upstream: '127.0.0.1:6379', [key]: value });
      expect(await refusal(bad)).toBe(`${bad}: ${named}`);
    }
    const badRecord = file({ record: { file: 't', keys: 'plain' } });
    expect(await refusal(badRecord)).toBe(`${badRecord}: record.keys`);
    // A misspelled record key is named as one, not as a record that is no object.
    const misspelledRecord = file({ record: { file: 't', maxbytes: 5000 } });
    await expect(readProxyConfig(misspelledRecord)).rejects.toThrow(
      `${misspelledRecord}: record.maxbytes: invalid value 5000; expected a key of record: file, maxBytes, keys, overwrite`,
    );
    expect(await refusal(join(dir, 'none.json'))).toBe('--config');
  });
});

describe('redis-rtt proxy --config (the built binary)', () => {
  it('--print-config prints the merged options with the token redacted, starts nothing and exits 0', async () => {
    const path = file(CONFIG);
    const r = await runCli(['proxy', '--config', path, '--listen', '127.0.0.1:7000', '--rtt', '5ms', '--toxic', '{"type":"timeout"}', '--print-config']);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({
      upstream: '127.0.0.1:6379',
      listen: '127.0.0.1:7000',
      controlToken: '(redacted)',
      link: { preset: 'cross-az', jitterUs: 100, rttUs: 5000 },
      toxics: [{ type: 'latency' }, { type: 'timeout' }],
      highWaterBytes: 1048576,
      record: { file: CONFIG.record.file, keys: 'hashed' },
    });
    expect(r.stdout).not.toContain('s3cret');
  });

  it('--print-config reads the TLS files the flags name, as the start does: a missing one exits 2 naming its flag', async () => {
    const upstream = await runCli(['proxy', '--upstream', '127.0.0.1:6379', '--upstream-tls', '--upstream-ca', join(dir, 'none.pem'), '--print-config']);
    expect(upstream.code).toBe(2);
    expect(upstream.stderr).toContain('--upstream-ca: invalid value');
    const listen = await runCli(['proxy', '--upstream', '127.0.0.1:6379', '--listen-tls', '--tls-cert', join(dir, 'none.pem'), '--tls-key', join(dir, 'none.key'), '--print-config']);
    expect(listen.code).toBe(2);
    expect(listen.stderr).toContain('--tls-cert: invalid value');
  });

  // docs/cli.md promised exit 2 wherever the start would; it cannot see the upstream, and --help and the docs now say so.
  it('--print-config connects to nothing: --zones against an upstream that is not a cluster (here none) exits 0, as --help says', async () => {
    const r = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--zones', '3', '--print-config']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ upstream: '127.0.0.1:1', zones: 3 });
    const help = await runCli(['proxy', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('connects to nothing: what the upstream is (--zones against a single Redis) or an address in use is refused only at the start');
  });

  it('refuses --print-config\'s own placeholder as a secret, so its output saved as a file does not set the token to "(redacted)"', async () => {
    const printed = await runCli(['proxy', '--config', file(CONFIG), '--print-config']);
    expect(printed.code, printed.stderr).toBe(0);
    const r = await runCli(['proxy', '--config', file(JSON.parse(printed.stdout)), '--print-config']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(': controlToken: invalid value "(redacted)"; expected the secret itself');
  });

  it('--no-control, --no-record, --no-stats-json, --no-toxics, --no-rtt-wave, --no-link-schedule, --no-rtt-series drop the keys', async () => {
    const timeline = { rttWave: 'sine:60s:2ms', linkSchedule: [{ at: '30s', link: { rttUs: 85000 } }], rttSeries: '0,1\n1,2\n', rttSeriesOnce: true };
    const path = file({ ...CONFIG, statsJson: join(dir, 'stats.json'), ...timeline });
    const negations = ['--no-control', '--no-record', '--no-stats-json', '--no-toxics', '--no-rtt-wave', '--no-link-schedule', '--no-rtt-series'];
    const r = await runCli(['proxy', '--config', path, ...negations, '--toxic', '{"type":"timeout"}', '--print-config']);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as Record<string, unknown>;
    for (const key of ['control', 'controlToken', 'record', 'statsJson', 'rttWave', 'linkSchedule', 'rttSeries', 'rttSeriesOnce']) {
      expect(printed, key).not.toHaveProperty(key);
    }
    // --toxic beside --no-toxics adds its own, in place of the file's.
    expect(printed).toMatchObject({ allowHosts: [], toxics: [{ type: 'timeout' }], link: CONFIG.link, highWaterBytes: 1048576 });
    // A flag that serves only what --no-control dropped exits 2 naming it, as --record-keys beside --no-record.
    const hosts = await runCli(['proxy', '--config', path, '--no-control', '--allow-host', 'h', '--no-record', '--print-config']);
    expect(hosts.code).toBe(2);
    expect(hosts.stderr).toContain('--allow-host: invalid value "h"; expected to be used with --control, not --no-control');
  });

  it('--handshake and --tap win over the file\'s false, as every single-valued flag does', async () => {
    const path = file({ upstream: '127.0.0.1:6379', handshake: false, tap: false });
    const fileOnly = await runCli(['proxy', '--config', path, '--print-config']);
    expect(fileOnly.code, fileOnly.stderr).toBe(0);
    expect(JSON.parse(fileOnly.stdout)).toMatchObject({ handshake: false, tap: false });
    const overridden = await runCli(['proxy', '--config', path, '--handshake', '--tap', '--print-config']);
    expect(overridden.code, overridden.stderr).toBe(0);
    expect(JSON.parse(overridden.stdout)).toMatchObject({ handshake: true, tap: true });
  });

  it('a bad file exits 2 naming the key path, before anything starts', async () => {
    const path = file({ upstream: '127.0.0.1:6379', link: { rttUs: 'fast' } });
    const r = await runCli(['proxy', '--config', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: link.rttUs: invalid value "fast"`);
    expect(r.stdout).toBe('');
  });

  it("a bad address exits 2 naming the file's key; the same value as a flag names the flag", async () => {
    const path = file({ upstream: '127.0.0.1:6379', listen: 'here' });
    const r = await runCli(['proxy', '--config', path, '--print-config']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: listen: invalid value "here"`);
    expect(r.stderr).not.toContain('--listen');
    const flagged = await runCli(['proxy', '--config', file({ upstream: '127.0.0.1:6379' }), '--control', 'here', '--print-config']);
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toContain('--control: invalid value "here"');
  });

  it('a bad link or host exits 2 naming the key even where the start would not read it (single-node, no --control)', async () => {
    for (const [key, value, named] of [
      ['sameZoneLink', 'bogus', 'sameZoneLink'],
      ['nodeLinks', ['x'], 'nodeLinks[0]'],
      ['allowHosts', ['a b'], 'allowHosts[0]'],
    ] as const) {
      const path = file({ upstream: '127.0.0.1:6379', [key]: value });
      const r = await runCli(['proxy', '--config', path, '--print-config']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${path}: ${named}: invalid value`);
      expect(r.stdout).toBe('');
    }
  });

  it('the same links and hosts as flags exit 2 naming the flag, in single-node mode with no --control too', async () => {
    for (const args of [
      ['--same-zone-link', 'bogus'],
      ['--cross-zone-link', 'rtt=fast'],
      ['--node-link', 'x'],
      ['--allow-host', 'a b'],
    ]) {
      const r = await runCli(['proxy', '--upstream', '127.0.0.1:6379', ...args, '--print-config']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${args[0]}`);
      expect(r.stderr).toContain('invalid value');
      expect(r.stdout).toBe('');
    }
  });

  it("runs with the file's link, toxics and control endpoint; --no-record and --no-stats-json write neither of its files", async () => {
    await using redis = await startPrivateRedis();
    const outputs = { record: { file: join(dir, 'run-trace.jsonl') }, statsJson: join(dir, 'run-stats.json') };
    const toxics = [{ type: 'latency', name: 'l', attributes: { latency: 0.5 } }];
    const path = file({ upstream: redis.address, link: { rttUs: 2000 }, control: '127.0.0.1:0', toxics, ...outputs });
    const proxy = await startCliProxy(['--config', path, '--compensate', 'off', '--no-record', '--no-stats-json']);
    try {
      expect((proxy.line as unknown as { link: { upUs: number; downUs: number } }).link).toMatchObject({ upUs: 1000, downUs: 1000 });
      const stats = (await proxy.stats()) as unknown as { toxics: { name: string }[] };
      expect(stats.toxics.map((t) => t.name)).toEqual(['l']);
    } finally {
      await proxy.stop();
    }
    expect(existsSync(outputs.record.file)).toBe(false);
    expect(existsSync(outputs.statsJson)).toBe(false);
  });
});
