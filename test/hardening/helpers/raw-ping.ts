import type net from 'node:net';

/** Sends one RESP PING on a raw socket and resolves with the first bytes that come back. */
export function pingRaw(s: net.Socket): Promise<string> {
  const reply = new Promise<string>((r) => s.once('data', (d: Buffer) => r(d.toString())));
  s.write('*1\r\n$4\r\nPING\r\n');
  return reply;
}
