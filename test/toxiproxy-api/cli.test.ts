import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Toxiproxy } from 'toxiproxy-node-client';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { BIN, runCli, startCliProxy } from '../hardening/helpers/cli-proxy.js';
import { toxicsFromFlags } from '../../src/cli/toxic-flags.js';

const run = promisify(execFile);
let redis: PrivateRedis;
let dir: string;
beforeAll(async () => {
  redis = await startPrivateRedis();
  dir = await mkdtemp(join(tmpdir(), 'redis-rtt-server-'));
});
afterAll(async () => {
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('redis-rtt server (the CLI)', () => {
  it('prints its listening line, populates from --config, answers toxiproxy clients, exits 0 on SIGTERM', async () => {
    const config = join(dir, 'proxies.json');
    await writeFile(config, JSON.stringify([{ name: 'redis', listen: '127.0.0.1:0', upstream: redis.address }]));
    const child = spawn(process.execPath, [BIN, 'server', '--api', '127.0.0.1:0', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const line = await new Promise<{ event: string; api: string }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
      });
      void exited.then((code) => reject(new Error(`server exited ${code}`)));
    });
    expect(line).toEqual({ event: 'listening', api: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
    const tp = new Toxiproxy(`http://${line.api}`);
    const proxy = await tp.get('redis');
    await proxy.addToxic({ type: 'redis_error' as never, attributes: { commands: ['GET'], error: 'MASTERDOWN Link with MASTER is down' } } as never);
    const port = proxy.listen.slice(proxy.listen.lastIndexOf(':') + 1);
    const cli = await run('redis-cli', ['-h', '127.0.0.1', '-p', port, 'GET', 'k']);
    expect(cli.stdout).toMatch(/MASTERDOWN Link with MASTER is down/);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('bad flags exit 2 naming the flag', async () => {
    const bad = await runCli(['server', '--config', join(dir, 'missing.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--config/);
    // A proxy of the file that cannot start is named by its place and name (the message named neither).
    const config = join(dir, 'populate-bad.json');
    await writeFile(config, JSON.stringify([
      { name: 'a', listen: '127.0.0.1:0', upstream: redis.address },
      { name: 'b', listen: '127.0.0.1:0', upstream: 'nope:abc' },
    ]));
    const entry = await runCli(['server', '--api', '127.0.0.1:0', '--config', config]);
    expect({ code: entry.code, stdout: entry.stdout }).toEqual({ code: 2, stdout: '' });
    expect(entry.stderr).toMatch(/^redis-rtt: --config: invalid value "[^"]+populate-bad\.json"; expected toxiproxy's populate JSON: proxy 2 \(b\): .*upstream: invalid value "nope:abc"/m);
  });
});

describe('redis-rtt proxy --toxic / --toxics', () => {
  it('exits 2 naming the flag and the field', async () => {
    const r = await runCli(['proxy', '--upstream', redis.address, '--toxic', '{"type":"latency","attributes":{"latency":"slow"}}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--toxic attributes\.latency/);
    const t = await runCli(['proxy', '--upstream', redis.address, '--toxic', '{"type":"nope"}']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/--toxic type/);
  });

  it("takes a Redis-aware toxic's list and flag in toxiproxy-cli's forms, a misspelled key still refused", () => {
    const [error, drop] = toxicsFromFlags({
      toxic: ['{"type":"redis_error","attributes":{"commands":"GET,MGET","keys":2024,"error":"LOADING x"}}', '{"type":"redis_drop","attributes":{"close":"true"}}'],
    });
    expect(error!.attributes).toMatchObject({ commands: ['GET', 'MGET'], keys: '2024' });
    expect(drop!.attributes).toMatchObject({ close: true });
    expect(() => toxicsFromFlags({ toxic: ['{"type":"redis_drop","attributes":{"clos":"true"}}'] })).toThrow(/--toxic attributes.*clos/);
    expect(() => toxicsFromFlags({ toxic: ['{"type":"redis_drop","attributes":{"close":"maybe"}}'] })).toThrow(/--toxic attributes\.close/);
  });

  it('applies --toxics FILE then --toxic, as redis-cli sees it', async () => {
    const file = join(dir, 'toxics.json');
    await writeFile(file, JSON.stringify([{ type: 'redis_error', name: 'ro', attributes: { commands: ['SET'], error: 'READONLY replica' } }]));
    const p = await startCliProxy([
      '--upstream', redis.address, '--listen', '127.0.0.1:0', '--control', '127.0.0.1:0', '--compensate', '0us',
      // `commands` as toxiproxy-cli's `-a commands=GET,MGET` sends it, a string: it was exit 2, "expected an array".
      '--toxics', file, '--toxic', '{"type":"redis_error","attributes":{"commands":"GET, MGET","error":"LOADING Redis is loading"}}',
    ]);
    try {
      const cli = (...args: string[]) => run('redis-cli', ['-h', p.host, '-p', String(p.port), ...args]);
      expect((await cli('SET', 'k', 'v')).stdout).toMatch(/READONLY replica/);
      expect((await cli('GET', 'k')).stdout).toMatch(/LOADING Redis is loading/);
      expect((await cli('MGET', 'k')).stdout).toMatch(/LOADING Redis is loading/);
      expect((await cli('PING')).stdout.trim()).toBe('PONG');
      const stats = await p.stats();
      expect(stats.toxics?.map((t) => [t.name, t.applications])).toEqual([['ro', 1], ['redis_error_downstream', 2]]);
    } finally {
      await p.stop();
    }
  });
});
