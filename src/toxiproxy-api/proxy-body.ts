import { z } from 'zod';
import { isJsonObject } from '../validation/schema.js';
import { badRequestBody, missingField, type ApiError } from './api-error.js';
import { goProxyBody } from './go-json.js';

/**
 * A proxy as toxiproxy's API takes it (create, populate; an update takes any subset). Unknown
 * keys (`toxics` in a populate file, anything newer) are ignored, as Go's decoder does.
 */
export const PROXY_BODY = z.object(
  {
    name: z.string({ error: 'a string' }).describe('Unique; required on create.').optional(),
    listen: z.string({ error: 'a string' }).describe('host:port to listen on; port 0 binds a free port. Default 127.0.0.1:0.').optional(),
    upstream: z.string({ error: 'a string' }).describe('host:port of the Redis; required on create.').optional(),
    enabled: z.boolean({ error: 'true or false' }).describe('Default true on create.').optional(),
  },
  { error: 'a JSON object' },
);

export type ProxyBody = z.output<typeof PROXY_BODY>;

/** A proxy to create: name and upstream given (toxiproxy: "missing required field"), defaults filled in. */
export interface ProxyCreate {
  name: string;
  listen: string;
  upstream: string;
  enabled: boolean;
}

/** PROXY_BODY, or toxiproxy's 400; `where` says which entry of a populate list (" at proxy 2"). */
export function parseProxyBody(body: unknown, where = ''): ProxyBody {
  const fields = goProxyBody(body);
  // A null leaves the field as it was, as Go's decoder does: absent on create, unchanged on update.
  const r = PROXY_BODY.safeParse(isJsonObject(fields) ? Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null)) : fields);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  return fail(issue.path.length === 0 ? badRequestBody(`expected ${issue.message}`) : badRequestBody(`${issue.path.join('.')}${where}: expected ${issue.message}`));
}

export function parseProxyCreate(body: unknown, where = ''): ProxyCreate {
  const { name, listen, upstream, enabled } = parseProxyBody(body, where);
  // toxiproxy reads an empty string as absent (Go's zero value).
  if (!name) return fail(missingField(`name${where}`));
  if (!upstream) return fail(missingField(`upstream${where}`));
  return { name, listen: listen || '127.0.0.1:0', upstream, enabled: enabled ?? true };
}

function fail(err: ApiError): never {
  throw err;
}
