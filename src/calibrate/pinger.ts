import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface PingTarget {
  host?: string;
  port?: number;
  path?: string;
  /** tls.connect options as JSON (PEM text, no Buffers): a TLS upstream measured directly. */
  tls?: PingTls;
}

export interface PingTls {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
  rejectUnauthorized?: boolean;
}

/**
 * Round trips measured from a separate process, so the client never shares an event loop with the
 * proxy it measures (as a real application would not), speaking raw RESP: no client library cost
 * in the figures. The process is kept alive across blocks: one warm JIT and one open connection per
 * target, so a calibration can alternate direct and proxied blocks cheaply and measure neither a
 * cold client nor a connection set-up.
 */
const SESSION_SOURCE = `
const net = require('node:net');
const tls = require('node:tls');
const readline = require('node:readline');
const conns = new Map();
const ping = Buffer.from('*1\\r\\n$4\\r\\nPING\\r\\n');
function connect(t) {
  const key = t.path ?? t.host + ':' + t.port;
  let c = conns.get(key);
  if (c) return c;
  c = new Promise((resolve, reject) => {
    const s = t.path ? net.connect({ path: t.path })
      : t.tls ? tls.connect({ ...t.tls, host: t.host, port: t.port })
      : net.connect({ host: t.host, port: t.port, noDelay: true });
    s.once(t.tls ? 'secureConnect' : 'connect', () => {
      s.setNoDelay(true);
      resolve(s);
    });
    s.once('error', reject);
  });
  conns.set(key, c);
  return c;
}
async function block(t, n, warmup, request) {
  const s = await connect(t);
  const payload = request ? Buffer.from(request, 'base64') : ping;
  const out = [];
  for (let i = 0; i < n + warmup; i++) {
    const t0 = process.hrtime.bigint();
    const got = new Promise((resolve, reject) => {
      const fail = () => reject(new Error('connection closed'));
      s.once('close', fail);
      s.once('data', () => { s.off('close', fail); resolve(); });
    });
    s.write(payload);
    await got;
    if (i >= warmup) out.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return out;
}
readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  const m = JSON.parse(line);
  try {
    process.stdout.write(JSON.stringify({ id: m.id, rtts: await block(m.target, m.n, m.warmup, m.request) }) + '\\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ id: m.id, error: String(e && e.message) }) + '\\n');
  }
});
`;

export interface PingSession {
  /**
   * `n` sequential requests (after `warmup`) on the session's connection to `target`; RTTs in us.
   * The request is PING unless `request` gives one RESP command (its reply must fit one read).
   */
  ping(target: PingTarget, n: number, warmup?: number, request?: Buffer): Promise<number[]>;
  close(): void;
}

export function startPingSession(): PingSession {
  const child = spawn(process.execPath, ['-e', SESSION_SOURCE], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map<number, { resolve: (x: number[]) => void; reject: (e: Error) => void }>();
  let stderr = '';
  let nextId = 1;
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.on('exit', () => {
    for (const w of waiting.values()) w.reject(new Error(`pinger exited: ${stderr.trim() || 'no message'}`));
    waiting.clear();
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line) as { id: number; rtts?: number[]; error?: string };
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.rtts) w?.resolve(m.rtts);
    else w?.reject(new Error(`pinger failed: ${m.error}`));
  });
  return {
    ping: (target, n, warmup = 0, request) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        child.stdin.write(JSON.stringify({ id, target, n, warmup, request: request?.toString('base64') }) + '\n');
      }),
    close: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

/** One block from a fresh client process (its own connection), which exits afterwards. */
export async function pingFromChild(target: PingTarget, samples: number, warmup = 50, request?: Buffer): Promise<number[]> {
  const session = startPingSession();
  try {
    return await session.ping(target, samples, warmup, request);
  } finally {
    session.close();
  }
}
