// The floor of a Node proxy, for `node -e PIPE_SOURCE PORT UPSTREAM_PORT`: a bare pipe that writes
// each 'data' chunk to the other socket and does nothing else (cheaper than stream.pipe(),
// docs/self-report.md "Fast path"). No tap, no delay line, no stats: what Node itself costs.
export const PIPE_SOURCE = `
const net = require('node:net');
const [port, upPort] = process.argv.slice(1).map(Number);
net.createServer({ noDelay: true }, (client) => {
  const up = net.connect({ host: '127.0.0.1', port: upPort, noDelay: true });
  client.on('data', (c) => up.write(c));
  up.on('data', (c) => client.write(c));
  const drop = () => { client.destroy(); up.destroy(); };
  client.on('error', drop).on('close', drop);
  up.on('error', drop).on('close', drop);
}).listen(port, '127.0.0.1');
`;
