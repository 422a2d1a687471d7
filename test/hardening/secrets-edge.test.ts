import net from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startCliProxy, type CliProxy } from './helpers/cli-proxy.js';
import { controlRequest } from './helpers/http.js';
import { encodeRequest } from './helpers/resp-gen.js';

/**
 * Client- and server-controlled text that reaches the stats by a side door: an unknown command
 * name (a password typed at a redis-cli prompt, a value pasted into telnet) and the first word of
 * an error reply (a Lua script's error_reply can say anything). Only module command names (with a
 * dot) are learned and only upper-case error codes are kept, so neither can carry such text into
 * /stats, /metrics, the exit summary or the --record trace.
 */
/** Which of the proxy's outputs contain `secret`. */
function keptIn(r: { p: CliProxy; stats: string; metrics: string; trace: string }, secret: RegExp): string[] {
  const outputs = { '/stats': r.stats, '/metrics': r.metrics, 'exit summary': r.p.stderr(), '--record trace': r.trace };
  return Object.entries(outputs)
    .filter(([, text]) => secret.test(text))
    .map(([what]) => what);
}

describe('text that is not a command name or an error code never reaches stats, metrics or traces', () => {
  let redis: PrivateRedis;
  let dir: string;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    dir = await mkdtemp(join(tmpdir(), 'redis-rtt-edge-'));
  });
  afterAll(async () => {
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function session(bytes: Buffer): Promise<{ p: CliProxy; stats: string; metrics: string; trace: string }> {
    const trace = join(dir, `t${Date.now()}.rrt`);
    const p = await startCliProxy(['--upstream', redis.address, '--control', '127.0.0.1:0', '--record', trace]);
    const s = net.connect({ host: p.host, port: p.port });
    await new Promise<void>((r) => s.once('connect', () => r()));
    const closed = new Promise<void>((r) => s.once('close', () => r()));
    s.on('data', () => undefined);
    s.end(bytes);
    await closed;
    const stats = (await controlRequest(p.line.control!, 'GET', '/stats')).body;
    const metrics = (await controlRequest(p.line.control!, 'GET', '/metrics')).body;
    await p.stop('SIGINT');
    return { p, stats, metrics, trace: (await readFile(trace)).toString('latin1') };
  }

  it('a password sent as a command (typed at a prompt by mistake) is not kept as a command name', async () => {
    const r = await session(Buffer.concat([Buffer.from('hunter2-SECRET\r\n'), encodeRequest(['hunter2-SECRET2'])]));
    expect(keptIn(r, /hunter2/i)).toEqual([]);
  });

  it("a value in an error reply's first word (Lua error_reply) is not kept as an error code", async () => {
    const r = await session(encodeRequest(['EVAL', "return redis.error_reply('value-SECRET-42 boom')", '0']));
    expect(keptIn(r, /value-SECRET-42/i)).toEqual([]);
  });
});
