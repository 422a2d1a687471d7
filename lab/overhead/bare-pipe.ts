import { spawnServerChild, type ServerChild } from './server-child.js';

/**
 * The floor a Node proxy can reach on this machine: each client piped to its own upstream
 * connection with stream.pipe(), nothing else (no delay line, no tap, no stats), in a process of
 * its own as the proxy it is compared with. CommonJS source for `node -e`; argv: host, port.
 */
const BARE_PIPE_SOURCE = `
const net = require('node:net');
const [host, port] = process.argv.slice(1);
const server = net.createServer({ noDelay: true }, (client) => {
  const up = net.connect({ host, port: Number(port), noDelay: true });
  client.pipe(up);
  up.pipe(client);
  const drop = () => { client.destroy(); up.destroy(); };
  client.on('error', drop).on('close', drop);
  up.on('error', drop).on('close', drop);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

export type BarePipe = ServerChild;

export function startBarePipe(upstream: { host: string; port: number }): Promise<BarePipe> {
  return spawnServerChild(['-e', BARE_PIPE_SOURCE, upstream.host, String(upstream.port)], (line) => ({ host: '127.0.0.1', port: Number(line) }), 'bare pipe');
}
