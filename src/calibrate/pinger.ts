import { execFile } from 'node:child_process';

/**
 * PING round trips measured from a separate process, so the client never shares an event loop
 * with the proxy it measures (as a real application would not). The child speaks raw RESP over
 * one socket: no client library cost in the figures.
 */
const PINGER_SOURCE = `
const net = require('node:net');
const [host, portOrPath, n, warmup, payload] = process.argv.slice(1);
const s = isNaN(Number(portOrPath)) ? net.connect({ path: portOrPath }) : net.connect({ host, port: Number(portOrPath), noDelay: true });
s.on('error', (e) => { process.stderr.write(String(e.message)); process.exit(3); });
s.once('connect', async () => {
  const out = [];
  const total = Number(n) + Number(warmup);
  const ping = payload ? Buffer.from(payload, 'base64') : Buffer.from('*1\\r\\n$4\\r\\nPING\\r\\n');
  for (let i = 0; i < total; i++) {
    const t0 = process.hrtime.bigint();
    s.write(ping);
    await new Promise((r) => s.once('data', r));
    if (i >= Number(warmup)) out.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  s.destroy();
  process.stdout.write(JSON.stringify(out));
});
`;

export interface PingTarget {
  host?: string;
  port?: number;
  path?: string;
}

/**
 * Runs `samples` sequential requests (after `warmup`) from a child process; resolves RTTs in us.
 * The request is PING unless `request` gives one RESP command (its reply must fit one read).
 */
export function pingFromChild(target: PingTarget, samples: number, warmup = 50, request?: Buffer): Promise<number[]> {
  const where = target.path ? ['', target.path] : [target.host ?? '127.0.0.1', String(target.port)];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', PINGER_SOURCE, ...where, String(samples), String(warmup), request ? request.toString('base64') : ''],
      { maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`pinger failed: ${stderr || err.message}`));
        else resolve(JSON.parse(stdout) as number[]);
      },
    );
  });
}
