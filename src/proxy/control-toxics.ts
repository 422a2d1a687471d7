import type http from 'node:http';
import { ConfigError } from '../errors.js';
import { ToxicExistsError, type ToxicSet } from '../toxics/toxic-set.js';
import { readJson, sendJson } from './control.js';

/** Toxics on the control endpoint: the JSON toxiproxy's API takes, statuses as in `redis-rtt server`. */
export async function toxicRoutes(req: http.IncomingMessage, res: http.ServerResponse, path: string, toxics: ToxicSet): Promise<void> {
  const name = path === '/toxics' ? undefined : decodeURIComponent(path.slice('/toxics/'.length));
  const method = req.method ?? 'GET';
  try {
    if (name === undefined && method === 'GET') return sendJson(res, 200, { toxics: toxics.list(), counts: toxics.counts() });
    if (name === undefined && method === 'POST') {
      const body = await readJson(req, res);
      if (body !== undefined) sendJson(res, 200, toxics.add(body));
      return;
    }
    if (name !== undefined && method === 'GET') {
      const t = toxics.get(name);
      return t ? sendJson(res, 200, t) : sendJson(res, 404, { error: `no toxic named ${name}` });
    }
    if (name !== undefined && (method === 'PATCH' || method === 'POST')) {
      const body = await readJson(req, res);
      if (body === undefined) return;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return sendJson(res, 400, { error: 'body must be a JSON object' });
      const t = toxics.update(name, body);
      return t ? sendJson(res, 200, t) : sendJson(res, 404, { error: `no toxic named ${name}` });
    }
    if (name !== undefined && method === 'DELETE') {
      req.resume();
      if (!toxics.remove(name)) return sendJson(res, 404, { error: `no toxic named ${name}` });
      res.writeHead(204);
      res.end();
      return;
    }
    req.resume();
    return sendJson(res, 405, { error: `method ${method} not allowed on ${path}` });
  } catch (err) {
    if (err instanceof ToxicExistsError) return sendJson(res, 409, { error: err.message });
    if (err instanceof ConfigError) return sendJson(res, 400, { error: err.message });
    throw err;
  }
}

