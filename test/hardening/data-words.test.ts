import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { encodeCommand } from '../tap/frames.js';
import { TapWire } from '../tap/tap-wire.js';
import { startCliProxy } from './helpers/cli-proxy.js';
import { controlRequest } from './helpers/http.js';

const PASSWORD = 'pw-Q7x';
/** Words a client or a script sends as data; none may reach /stats, /metrics or a trace. */
const WORDS = [/mypass\.word/i, /LEAKEDSECRET123/i, /pw-Q7x/i, /garbage\.\d/i];

describe('no data words in /stats, /metrics or a trace (real proxy, real Redis)', () => {
  let redis: PrivateRedis;
  let dir: string;
  beforeAll(async () => {
    redis = await startPrivateRedis({ args: ['--requirepass', PASSWORD] });
    dir = await mkdtemp(join(tmpdir(), 'redis-rtt-words-'));
  });
  afterAll(async () => {
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a dotted word typed as a command, a script error_reply, AUTH/CONFIG/ACL sizes', { timeout: 60_000 }, async () => {
    const trace = join(dir, 'words.trace');
    const p = await startCliProxy(['--upstream', redis.address, '--control', '127.0.0.1:0', '--record', trace, '--compensate', '0']);
    const c = new Redis({ host: p.host, port: p.port, password: PASSWORD, lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await c.connect();
      await expect(c.call('mypass.word')).rejects.toThrow(/unknown command/);
      await expect(c.call('mypass.word', 'again')).rejects.toThrow(/unknown command/);
      for (let i = 0; i < 300; i++) await expect(c.call(`garbage.${i}`)).rejects.toThrow();
      await expect(c.eval("return redis.error_reply('LEAKEDSECRET123 boom')", 0)).rejects.toThrow(/LEAKEDSECRET123/);
      await expect(c.call('AUTH', PASSWORD)).resolves.toBe('OK');
      await c.call('CONFIG', 'SET', 'requirepass', PASSWORD);
      await c.call('ACL', 'SETUSER', 'u1', 'on', `>${PASSWORD}`);
      await c.call('CONFIG', 'GET', 'requirepass');

      const ctl = p.line.control!;
      const stats = await controlRequest(ctl, 'GET', '/stats');
      const metrics = await controlRequest(ctl, 'GET', '/metrics');
      for (const [what, text] of [['/stats', stats.body], ['/metrics', metrics.body]] as const) {
        for (const w of WORDS) expect(w.test(text), `${what} contains ${w}`).toBe(false);
      }
      const s = JSON.parse(stats.body) as { totals: { errorsByPrefix: Record<string, number> }; commands: Record<string, { count: number }> };
      // ERR: 302 unknown commands plus ioredis's CLIENT SETINFO on connect, which Redis 7.0 refuses.
      expect(Object.keys(s.totals.errorsByPrefix).sort()).toEqual(['ERR', 'OTHER']);
      expect(s.totals.errorsByPrefix.OTHER).toBe(1);
      expect(s.totals.errorsByPrefix.ERR).toBeGreaterThanOrEqual(302);
      expect(s.commands['?']?.count).toBe(302);
    } finally {
      c.disconnect();
    }
    expect(await p.stop('SIGINT')).toEqual({ code: 0, signal: null });
    const text = await readFile(trace, 'utf8');
    for (const w of WORDS) expect(w.test(text), `trace contains ${w}`).toBe(false);
    const cmds = text.split('\n').filter((l) => l.startsWith('{"type":"cmd"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const credential = cmds.filter((e) => /^(AUTH|HELLO|CONFIG|ACL|MIGRATE)\b/.test(String(e.n)));
    expect(credential.length).toBeGreaterThanOrEqual(5);
    for (const e of credential) {
      expect(e, JSON.stringify(e)).toMatchObject({ up: 0, down: 0 });
      expect(e.as).toBeUndefined();
    }
    expect(cmds.some((e) => e.err === 'OTHER')).toBe(true);
    expect(p.stderr() + p.stdout()).not.toMatch(/LEAKEDSECRET123|mypass\.word|pw-Q7x/i);
  });
});

describe('a dotted name becomes a command name only once Redis answered it', () => {
  it('an error reply proves nothing; a plain reply does, for later requests', () => {
    const w = new TapWire('whole');
    w.up(encodeCommand(['acme.fly', 'x']), 0).sent(1);
    w.down('-ERR unknown command|', 2).delivered(3);
    w.up(encodeCommand(['acme.fly', 'x']), 10).sent(11);
    w.down('+OK|', 12).delivered(13);
    w.up(encodeCommand(['ACME.FLY', 'x']), 20).sent(21);
    w.down('+OK|', 22).delivered(23);
    const snap = w.commands.snapshot();
    expect(snap['?']?.count).toBe(2);
    expect(snap['ACME.FLY']?.count).toBe(1);
  });
});
