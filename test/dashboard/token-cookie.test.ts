/** The guard's token from the dashboard's cookie and from a token page's ?token=. */
import { describe, expect, it } from 'vitest';
import { HttpGuard } from '../../src/http/guard.js';
import { readCookie, tokenCookie, tokenCookieName } from '../../src/http/token-cookie.js';

const bound = { kind: 'tcp' as const, host: '127.0.0.1', port: 7070 };
const host = '127.0.0.1:7070';
const origin = 'http://127.0.0.1:7070';

describe('the token cookie', () => {
  const guard = new HttpGuard({ bound, token: 't0k' });
  const cookie = `other=1; ${guard.cookieName}=t0k`;

  it('is named after the port (cookies ignore ports) and set HttpOnly, SameSite=Strict', () => {
    expect(guard.cookieName).toBe(tokenCookieName(7070));
    expect(tokenCookieName(7070)).not.toBe(tokenCookieName(7071));
    expect(tokenCookie('n', 'a b;c')).toBe('n=a%20b%3Bc; Path=/; HttpOnly; SameSite=Strict');
    expect(readCookie('x=1; n=a%20b%3Bc', 'n')).toBe('a b;c');
    expect(readCookie('nn=1; n2=2', 'n')).toBeUndefined();
    expect(readCookie('n=%E0%A4', 'n')).toBeUndefined();
  });

  it('counts for GET without an Origin, and for a write only with this endpoint\'s Origin', () => {
    expect(guard.check({ host, cookie })).toEqual({ allow: true });
    expect(guard.check({ host, cookie }, { method: 'PUT' })).toMatchObject({ allow: false, status: 401 });
    expect(guard.check({ host, cookie, origin }, { method: 'PUT' })).toEqual({ allow: true });
    expect(guard.check({ host, cookie, origin: 'http://127.0.0.1:9999' }, { method: 'POST' })).toMatchObject({ status: 403 });
  });

  it('a wrong cookie, or the cookie of another port, is no token', () => {
    expect(guard.check({ host, cookie: `${guard.cookieName}=t0` })).toMatchObject({ status: 401 });
    expect(guard.check({ host, cookie: `${tokenCookieName(7071)}=t0k` })).toMatchObject({ status: 401 });
  });

  it('a page\'s ?token= is checked alone: a right cookie does not make a wrong one pass', () => {
    expect(guard.check({ host }, { queryToken: 't0k' })).toEqual({ allow: true });
    expect(guard.check({ host, cookie }, { queryToken: 'wrong' })).toMatchObject({ status: 401 });
    expect(guard.check({ host, authorization: 'Bearer t0k' }, { queryToken: 'wrong' })).toMatchObject({ status: 401 });
  });
});
