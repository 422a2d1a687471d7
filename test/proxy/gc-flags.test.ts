/**
 * The CLI runs with V8's memory reducer off (src/proxy/gc-flags.ts): its `#!` line carries the
 * flags, and started as users start it (the file itself, as npm's bin link does) the process has
 * them.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROXY_PROCESS_V8_FLAGS } from '../../src/proxy/gc-flags.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';

const BIN = resolve(import.meta.dirname, '../../bin/redis-rtt.js');

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe('the CLI process has the proxy process V8 flags', () => {
  it('in the #! line of bin/redis-rtt.js', () => {
    const first = readFileSync(BIN, 'utf8').split('\n', 1)[0];
    expect(first).toBe(`#!/usr/bin/env -S node ${PROXY_PROCESS_V8_FLAGS.join(' ')}`);
  });

  it('when the file is run itself: the proxy process carries them on its command line', async () => {
    const child = spawn(BIN, ['proxy', '--upstream', redis.address, '--listen', '127.0.0.1:0', '--no-handshake'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((done, fail) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('"listening"')) done();
        });
        child.once('exit', (code) => fail(new Error(`the proxy exited (${code}) before listening`)));
      });
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      expect(argv[0]).toMatch(/node$/);
      expect(argv.slice(1, 1 + PROXY_PROCESS_V8_FLAGS.length)).toEqual(PROXY_PROCESS_V8_FLAGS);
      expect(argv[1 + PROXY_PROCESS_V8_FLAGS.length]).toBe(BIN);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
