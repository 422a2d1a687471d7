import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Endpoint } from '../endpoint.js';
import type { PingAnswer, PingRequest, PingTls } from './ping-protocol.js';

export type { PingTls } from './ping-protocol.js';

/**
 * The ping process's module: beside this one in the build; from the sources (vitest), the build's
 * copy (npm test builds first), since Node runs JavaScript only.
 */
function childModule(): string {
  const beside = new URL('./ping-child.js', import.meta.url);
  return fileURLToPath(existsSync(beside) ? beside : new URL('../../dist/calibrate/ping-child.js', import.meta.url));
}

export interface PingSession {
  /**
   * `n` sequential requests (after `warmup`) on the session's connection to `at`; RTTs in us.
   * The request is PING unless `request` gives one RESP command. `tls` when `at` speaks TLS.
   */
  ping(at: Endpoint, n: number, warmup?: number, request?: Buffer, tls?: PingTls): Promise<number[]>;
  close(): void;
}

/** Round trips measured from a separate process, kept alive across blocks (see ping-child.ts). */
export function startPingSession(): PingSession {
  const child = spawn(process.execPath, [childModule()], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map<number, { resolve: (x: number[]) => void; reject: (e: Error) => void }>();
  let stderr = '';
  let nextId = 1;
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.on('exit', () => {
    for (const w of waiting.values()) w.reject(new Error(`pinger exited: ${stderr.trim() || 'no message'}`));
    waiting.clear();
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line) as PingAnswer;
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if ('rtts' in m) w?.resolve(m.rtts);
    else w?.reject(new Error(`pinger failed: ${m.error}`));
  });
  return {
    ping: (at, n, warmup = 0, request, tls) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        const req: PingRequest = { id, at, n, warmup, ...(tls ? { tls } : {}), ...(request ? { request: request.toString('base64') } : {}) };
        child.stdin.write(JSON.stringify(req) + '\n');
      }),
    close: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

/** One block from a fresh client process (its own connection), which exits afterwards. */
export async function pingFromChild(at: Endpoint, samples: number, warmup = 50, request?: Buffer): Promise<number[]> {
  const session = startPingSession();
  try {
    return await session.ping(at, samples, warmup, request);
  } finally {
    session.close();
  }
}
