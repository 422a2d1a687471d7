import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram, runProgram } from '../../src/cli/main.js';
import { freePort, signalAtListening } from './signal-at-listening.js';

describe('server: a signal during start-up', () => {
  afterEach(() => vi.restoreAllMocks());

  it('closes the API and the --config proxies, says so in one line and exits 143', async () => {
    let stderr = '';
    let stdout = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
    vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((stdout += String(s)), true));
    const dir = mkdtempSync(join(tmpdir(), 'rtt-server-stop-'));
    const [apiPort, proxyPort] = [await freePort(), await freePort()];
    const config = join(dir, 'proxies.json');
    // Port 1: nothing listens there; the proxy listens all the same.
    writeFileSync(config, JSON.stringify([{ name: 'redis', listen: `127.0.0.1:${proxyPort}`, upstream: '127.0.0.1:1' }]));
    // The signal lands as the start-up's handler is installed: before anything is bound.
    const signalAtStart = (event: string | symbol): void => {
      if (event !== 'SIGTERM') return;
      process.off('newListener', signalAtStart);
      queueMicrotask(() => process.emit('SIGTERM'));
    };
    process.on('newListener', signalAtStart);
    try {
      const argv = ['node', 'redis-rtt', 'server', '--api', `127.0.0.1:${apiPort}`, '--config', config];
      // Node's default killed it by the signal, the API and the proxies not closed, without a word.
      expect(await runProgram(buildProgram(), argv)).toBe(143);
    } finally {
      process.off('newListener', signalAtStart);
      rmSync(dir, { recursive: true, force: true });
    }
    expect(stderr).toMatch(/^redis-rtt server: stopping: the start-up was cut short; closing what it started/);
    expect(stderr).toMatch(/redis-rtt: stopped on request \(SIGTERM during start-up; what it started is closed\)\n$/);
    expect(stdout).toBe('');
    expect(process.listenerCount('SIGTERM')).toBe(0);
    expect(process.listenerCount('SIGINT')).toBe(0);
    // Both listeners are closed: their ports bind again.
    await bindOnce(apiPort);
    await bindOnce(proxyPort);
  });

  it('a signal as the start ends stops the run after its listening line: exit 0, nothing left listening', async () => {
    const run = signalAtListening('SIGINT');
    const apiPort = await freePort();
    try {
      expect(await runProgram(buildProgram(), ['node', 'redis-rtt', 'server', '--api', `127.0.0.1:${apiPort}`])).toBe(0);
    } finally {
      run.stop();
    }
    expect(run.listening).toBe(true);
    expect(run.uncovered).toEqual([]);
    await bindOnce(apiPort);
  });
});


function bindOnce(port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}
