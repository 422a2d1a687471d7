import { HttpError, readJson, readJsonObject, sendEmpty, sendJson } from '../http/json.js';
import { requiredQueryParam, type Handler, type Route } from '../http/router.js';
import type { ToxicControl } from '../toxics/toxic-set.js';

/** Toxics on the control endpoint: the JSON toxiproxy's API takes, statuses as in `redis-rtt server`. */
export function toxicRoutes(toxics: ToxicControl, limitBytes: number): Route[] {
  const found = <T>(t: T | undefined, name: string): T => {
    if (t === undefined) throw new HttpError(404, `no toxic named ${name}`);
    return t;
  };
  const update: Handler = async (req, res, [name = '']) => {
    const body = await readJsonObject(req, limitBytes);
    sendJson(res, 200, found(toxics.update(name, body), name));
  };
  const remove: Handler = (_req, res, [name = '']) => {
    if (!toxics.remove(name)) throw new HttpError(404, `no toxic named ${name}`);
    sendEmpty(res, 204);
  };
  return [
    {
      path: '/toxics',
      methods: {
        GET: (_req, res) => sendJson(res, 200, { toxics: toxics.list(), counts: toxics.counts() }),
        POST: async (req, res) => sendJson(res, 200, toxics.add(await readJson(req, limitBytes))),
        // ?name=: any name, "." and ".." too, which a browser cannot send as /toxics/{name} (the dashboard's form).
        DELETE: (req, res) => remove(req, res, [requiredQueryParam(req, 'name')]),
      },
    },
    {
      path: /^\/toxics\/(.*)$/,
      methods: {
        GET: (_req, res, [name = '']) => sendJson(res, 200, found(toxics.get(name), name)),
        PATCH: update,
        POST: update,
        DELETE: remove,
      },
    },
  ];
}
