/**
 * One CLI grammar (issue 18 item 4), on the built binary: `off` for compensation everywhere, `--json -`
 * for stdout, one error prefix, one range in --batch messages, a bare number is ms for every duration,
 * `--upstream HOST` means port 6379, and a warning when jitter's lower tail reaches zero delay.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseCompensateFlag } from '../../src/cli/compensate-flag.js';
import { parseRedisEndpoint } from '../../src/endpoint.js';
import { jitterFloorWarning } from '../../src/link/jitter.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.js';
import { runCli, startCliProxy } from './helpers/cli-proxy.js';
import { controlRequest } from './helpers/http.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(() => redis?.stop());

describe('compensation: off everywhere, bare numbers in ms', () => {
  it('proxy --compensate off starts with nothing taken off (it failed with ENOENT before)', async () => {
    const p = await startCliProxy(['--upstream', redis.address, '--compensate', 'off']);
    try {
      expect((p.line as unknown as { compensationUs: unknown }).compensationUs).toEqual({ up: 0, down: 0 });
    } finally {
      await p.stop();
    }
  });

  it('reads off, 0, a bare number (ms) and a unit the same way in every command', () => {
    expect(parseCompensateFlag('off')).toEqual({ up: 0, down: 0 });
    expect(parseCompensateFlag('0')).toEqual({ up: 0, down: 0 });
    expect(parseCompensateFlag('1')).toEqual({ up: 1000, down: 1000 });
    expect(parseCompensateFlag('20us')).toEqual({ up: 20, down: 20 });
    expect(parseCompensateFlag('auto')).toBeUndefined();
  });
});

describe('--upstream', () => {
  it('a bare host means port 6379; port 0 is refused without mentioning "any free port"', () => {
    expect(parseRedisEndpoint('localhost', '--upstream')).toEqual({ kind: 'tcp', host: 'localhost', port: 6379 });
    expect(parseRedisEndpoint('redis.internal', '--upstream')).toEqual({ kind: 'tcp', host: 'redis.internal', port: 6379 });
    expect(parseRedisEndpoint('6380', '--upstream')).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 6380 });
    expect(() => parseRedisEndpoint('localhost:0', '--upstream')).toThrow(/port 6379 if left out/);
    expect(() => parseRedisEndpoint('localhost:0', '--upstream')).not.toThrow(/any free port/);
  });
});

describe('--upstream HOST on the binary', () => {
  it('the listening line shows the port a bare host means', async () => {
    // Nothing needs to listen on 6379: with --compensate off the proxy dials Redis per client only.
    const p = await startCliProxy(['--upstream', 'localhost', '--compensate', 'off']);
    try {
      expect(p.line.upstream).toBe('localhost:6379');
    } finally {
      await p.stop();
    }
  });
});

describe('errors: one prefix, one range', () => {
  it('commander\'s own errors carry the redis-rtt: prefix too', async () => {
    const r = await runCli(['bench', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^redis-rtt: unknown option '--bogus'/);
    expect(r.stderr).not.toMatch(/^error:/m);
  });

  it('no command, or help for one that does not exist, shows the help on stderr and exits 2; help asked for exits 0', async () => {
    for (const args of [[], ['help', 'bogus']]) {
      const r = await runCli(args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(r.stderr).toMatch(/^Usage: redis-rtt \[options\] \[command\]/);
    }
    for (const args of [['help'], ['--help'], ['help', 'proxy']]) {
      const r = await runCli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.stdout).toMatch(/^Usage: redis-rtt/);
    }
  });

  it('--batch says the same range for every bad value', async () => {
    for (const bad of ['x', '0', '8,-1', '2000000']) {
      const r = await runCli(['bench', '--batch', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toMatch(/^redis-rtt: --batch: invalid value "[^"]*"; expected a whole number from 1 to 1000000/);
    }
  });
});

describe('--json FILE or - for stdout', () => {
  it('bench --json - prints the JSON report on stdout, the table on stderr', async () => {
    const r = await runCli(['bench', '--links', 'direct', '--modes', 'seq', '-n', '10', '--repeat', '1', '--warmup', '0', '--driver-warmup', '0', '--json', '-'], 30_000);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { kind: string }).kind).toBe('bench');
    expect(r.stderr).toContain('median ms');
    expect(r.stderr).not.toMatch(/wrote -/);
  }, 30_000);

  it('bench refuses --json - with --format (one thing on stdout)', async () => {
    const r = await runCli(['bench', '--json', '-', '--format', 'table']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^redis-rtt: --json/);
  });
});

describe('jitter whose lower tail reaches zero delay', () => {
  for (const [jitter, warned] of [['0.3ms', true], ['0.2ms', false]] as const) {
    it(`normal jitter ${jitter} on a 1 ms one-way delay: ${warned ? 'warns' : 'no warning'}`, async () => {
      const p = await startCliProxy(['--upstream', redis.address, '--compensate', 'off', '--rtt', '2', '--jitter', jitter, '--jitter-dist', 'normal']);
      try {
        // --rtt 2 is 2 ms: a bare number is ms.
        expect((p.line as unknown as { link: { upUs: number } }).link.upUs).toBe(1000);
        if (warned) {
          await vi.waitUntil(() => p.stderr().includes('reaches zero delay'), { timeout: 4000, interval: 10 });
          expect(p.stderr()).toMatch(/warning: jitter 300 us \(normal\) reaches zero delay .* keep jitter at most 250 us/);
        } else {
          expect(p.stderr()).not.toContain('reaches zero delay');
        }
      } finally {
        await p.stop();
      }
    });
  }

  it('PUT /link answers with the same warning in `warnings`, and [] for a safe link', async () => {
    const p = await startCliProxy(['--upstream', redis.address, '--compensate', 'off', '--rtt', '0.5ms', '--control', '127.0.0.1:0']);
    try {
      const put = async (body: object) => {
        const r = await controlRequest(p.line.control!, 'PUT', '/link', { body: JSON.stringify(body) });
        expect(r.status, r.body).toBe(200);
        return JSON.parse(r.body) as { upUs: number; warnings: string[] };
      };
      expect(await put({ jitterUs: 100 })).toMatchObject({ upUs: 250, warnings: [] });
      const { warnings } = await put({ jitterUs: 5000 });
      expect(warnings).toEqual([expect.stringMatching(/^warning: jitter 5000 us \(uniform\) reaches zero delay in its lower tail on a 250 us one-way delay: .* keep jitter at most 250 us/)]);
      expect(warnings[0]).toBe(jitterFloorWarning({ upUs: 250, downUs: 250, jitterUs: 5000, jitterDist: 'uniform' }));
      // A delay change under that jitter earns it too; the link is what the reply says either way.
      expect((await put({ rttUs: 20_000 })).warnings).toEqual([]);
      expect((await put({ rttUs: 2000 })).warnings).toHaveLength(1);
    } finally {
      await p.stop();
    }
  });
});
