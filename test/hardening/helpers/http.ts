import http from 'node:http';

export interface ControlResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface ControlRequestOptions {
  token?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** One HTTP request to a control endpoint "host:port"; resolves with status, headers and body text. */
export function controlRequest(
  address: string,
  method: string,
  path: string,
  options: ControlRequestOptions = {},
): Promise<ControlResponse> {
  const i = address.lastIndexOf(':');
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: address.slice(0, i), port: Number(address.slice(i + 1)), method, path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
