import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecorder } from '../../src/record/recorder.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runCli, startCliProxy } from '../hardening/helpers/cli-proxy.js';
import { LOCAL_LINK } from './synthetic.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-trace-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const mode = (p: string): number => statSync(p).mode & 0o777;

describe('trace files: 0600, never through a symlink, never over a file unless told', () => {
  it('a new trace is 0600', async () => {
    const path = join(dir, 'new.trace');
    const rec = createRecorder({ path, link: LOCAL_LINK });
    await rec.close();
    expect(mode(path)).toBe(0o600);
  });

  it('an existing path is refused; --record-overwrite replaces it and makes it 0600', async () => {
    const path = join(dir, 'exists.trace');
    writeFileSync(path, 'keep me');
    chmodSync(path, 0o644);
    expect(() => createRecorder({ path, link: LOCAL_LINK })).toThrow(/EEXIST/);
    expect(readFileSync(path, 'utf8')).toBe('keep me');
    const rec = createRecorder({ path, link: LOCAL_LINK, overwrite: true });
    await rec.close();
    expect(readFileSync(path, 'utf8')).toMatch(/^\{"type":"header"/);
    expect(mode(path)).toBe(0o600);
  });

  it('a symlink is refused, with or without overwrite, and its target is untouched', () => {
    const target = join(dir, 'precious.txt');
    writeFileSync(target, 'precious');
    const link = join(dir, 'link.trace');
    symlinkSync(target, link);
    expect(() => createRecorder({ path: link, link: LOCAL_LINK })).toThrow(/EEXIST/);
    expect(() => createRecorder({ path: link, link: LOCAL_LINK, overwrite: true })).toThrow(/ELOOP/);
    const dangling = join(dir, 'dangling.trace');
    symlinkSync(join(dir, 'would-be-created.txt'), dangling);
    expect(() => createRecorder({ path: dangling, link: LOCAL_LINK })).toThrow(/EEXIST/);
    expect(() => statSync(join(dir, 'would-be-created.txt'))).toThrow();
    expect(readFileSync(target, 'utf8')).toBe('precious');
  });
});

describe('redis-rtt proxy --record against real Redis', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('exits 2 naming --record for a symlink or an existing file; records with --record-overwrite', { timeout: 60_000 }, async () => {
    const target = join(dir, 'cli-precious.txt');
    writeFileSync(target, 'precious');
    const link = join(dir, 'cli-link.trace');
    symlinkSync(target, link);
    for (const extra of [[], ['--record-overwrite']]) {
      const r = await runCli(['proxy', '--upstream', redis.address, '--record', link, ...extra]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--record.*(symlink|does not exist)/);
    }
    expect(readFileSync(target, 'utf8')).toBe('precious');

    const existing = join(dir, 'cli-existing.trace');
    writeFileSync(existing, 'old');
    const refused = await runCli(['proxy', '--upstream', redis.address, '--record', existing]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/--record-overwrite/);
    const p = await startCliProxy(['--upstream', redis.address, '--record', existing, '--record-overwrite', '--compensate', '0']);
    const c = new Redis({ host: p.host, port: p.port });
    try {
      await c.set('k', 'v');
    } finally {
      c.disconnect();
    }
    expect(await p.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(readFileSync(existing, 'utf8')).toMatch(/"n":"SET"/);
    expect(mode(existing)).toBe(0o600);
  });

  it('a config file\'s rttWave or rttSeries is named in the header as its flag would be', { timeout: 60_000 }, async () => {
    // Only the flags were: a file that moved the link gave a trace that read as a fixed one, and
    // analyze counted the wave's delay a second time in every projection without a word.
    const path = join(dir, 'cli-file-wave.trace');
    const config = join(dir, 'wave.json');
    writeFileSync(config, JSON.stringify({ upstream: redis.address, rttWave: 'sine:60s:2ms', record: { file: path } }));
    const p = await startCliProxy(['--config', config, '--compensate', '0']);
    expect(await p.stop('SIGINT')).toEqual({ code: 0, signal: null });
    const header = JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!) as { linkMoves?: string[] };
    expect(header.linkMoves).toEqual(['rttWave']);
    // The flag wins over the file's key, and is named as the flag.
    const flagged = join(dir, 'cli-flag-wave.trace');
    writeFileSync(config, JSON.stringify({ upstream: redis.address, rttWave: 'sine:60s:2ms', record: { file: flagged } }));
    const q = await startCliProxy(['--config', config, '--rtt-wave', 'sine:30s:1ms', '--compensate', '0']);
    expect(await q.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect((JSON.parse(readFileSync(flagged, 'utf8').split('\n')[0]!) as { linkMoves?: string[] }).linkMoves).toEqual(['--rtt-wave']);
  });

  it('a --link-schedule (or a config file\'s linkSchedule) that ramps is named in the header; one that only steps is not', { timeout: 60_000 }, async () => {
    // A ramp's link line holds its target from the step's start: the delays it moved through were in no
    // line, and the header read as a link that only stepped, so analyze priced the ramp at its target.
    const ramp = [{ at: '0s', link: { rttUs: 2000 } }, { at: '30s', link: { rttUs: 20_000 }, ramp: '10s' }];
    const steps = [{ at: '0s', link: { rttUs: 2000 } }, { at: '30s', link: { rttUs: 20_000 } }];
    const headerOf = async (name: string, args: string[]): Promise<{ linkMoves?: string[] }> => {
      const p = await startCliProxy(['--compensate', '0', '--record', join(dir, name), ...args]);
      expect(await p.stop('SIGINT')).toEqual({ code: 0, signal: null });
      return JSON.parse(readFileSync(join(dir, name), 'utf8').split('\n')[0]!) as { linkMoves?: string[] };
    };
    const file = (name: string, json: unknown): string => {
      writeFileSync(join(dir, name), JSON.stringify(json));
      return join(dir, name);
    };
    const rampFile = file('ramp.json', ramp);
    expect((await headerOf('ramp-flag.trace', ['--upstream', redis.address, '--link-schedule', rampFile])).linkMoves).toEqual(['--link-schedule']);
    const config = file('ramp-config.json', { upstream: redis.address, linkSchedule: { loop: true, steps: ramp } });
    expect((await headerOf('ramp-file.trace', ['--config', config])).linkMoves).toEqual(['linkSchedule']);
    // The flag's schedule wins over the file's: one that only steps has every change in its link lines.
    const stepsFile = file('steps.json', steps);
    expect((await headerOf('steps-flag.trace', ['--config', config, '--link-schedule', stepsFile])).linkMoves).toBeUndefined();
    expect((await headerOf('wave-ramp.trace', ['--upstream', redis.address, '--rtt-wave', 'sine:60s:1ms', '--link-schedule', rampFile])).linkMoves).toEqual([
      '--rtt-wave',
      '--link-schedule',
    ]);
  });

  it('a start that fails leaves no trace file, so the same command runs once the cause is gone', { timeout: 60_000 }, async () => {
    const busy = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const port = (busy.address() as AddressInfo).port;
    const path = join(dir, 'cli-failed-start.trace');
    try {
      const r = await runCli(['proxy', '--upstream', redis.address, '--control', `127.0.0.1:${port}`, '--record', path, '--compensate', '0']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--control.*address already in use/);
      // It was left with a header and nothing else, and the next run exited 2: "a path that does not exist yet".
      expect(existsSync(path)).toBe(false);
    } finally {
      await new Promise((done) => busy.close(done));
    }
  });

  it('--no-tap (or a config file\'s "tap": false) with --record exits 2 naming --record (or the file\'s record.file): the trace would hold no command', { timeout: 60_000 }, async () => {
    const path = join(dir, 'cli-no-tap.trace');
    const config = join(dir, 'no-tap.json');
    writeFileSync(config, JSON.stringify({ upstream: redis.address, tap: false, record: { file: path } }));
    const cases: [string[], RegExp][] = [
      [['--upstream', redis.address, '--no-tap', '--record', path], /--record: invalid value ".*cli-no-tap\.trace"; expected a proxy that parses RESP: --no-tap/],
      [['--config', config], /no-tap\.json: record\.file: invalid value ".*cli-no-tap\.trace"; expected a proxy that parses RESP: --no-tap/],
      [['--config', config, '--print-config'], /no-tap\.json: record\.file: invalid value ".*cli-no-tap\.trace"; expected a proxy that parses RESP: --no-tap/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['proxy', ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(existsSync(path)).toBe(false);
    }
  });
});
