/**
 * The control token as a browser keeps it. `EventSource` cannot send an Authorization header, so
 * the dashboard is opened once as `/?token=T` and the endpoint answers with this cookie: HttpOnly
 * (no script reads it), SameSite=Strict (no other site's page makes the browser send it). Cookies
 * ignore ports, so the name carries the endpoint's port: two endpoints on one host keep their own.
 */

/** The cookie's name for an endpoint bound to `port` (a unix socket has none). */
export function tokenCookieName(port: number | undefined): string {
  return `redis-rtt-token-${port ?? 'unix'}`;
}

/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The Set-Cookie header value that stores `token` for the whole endpoint (a browser-session cookie). */
export function tokenCookie(name: string, token: string): string {
  return `${name}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`;
}
