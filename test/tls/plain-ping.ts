import net from 'node:net';

/** One PING over a new plaintext connection to 127.0.0.1:`port`; the first chunk of its reply. */
export function plainPing(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = net.connect({ host: '127.0.0.1', port, noDelay: true });
    c.once('data', (d) => (resolve(d.toString()), c.destroy()));
    c.once('error', reject);
    c.write('*1\r\n$4\r\nPING\r\n');
  });
}
