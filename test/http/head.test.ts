import { afterEach, describe, expect, it } from 'vitest';
import type { ControlHandlers } from '../../src/proxy/control.js';
import { planControl, startControl } from '../../src/proxy/start-control.js';
import { NO_DELAY } from '../../src/link/types.js';
import { controlRequest } from '../hardening/helpers/http.js';

const handlers: ControlHandlers = {
  stats: () => ({ totals: { roundTrips: 7 }, commands: {}, connections: { active: 1, total: 2 }, link: { ...NO_DELAY } }) as never,
  metrics: () => 'redis_rtt_up 1\n',
  setLink: () => ({ link: {}, warnings: [] }),
  linkOf: () => ({}),
  statsOf: () => ({}),
  reset: () => undefined,
  connections: () => [],
  commandLatencyUs: () => [],
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function control(): Promise<string> {
  const c = (await startControl(planControl({ control: '127.0.0.1:0' }), handlers, () => undefined))!;
  closers.push(() => c.close());
  return c.address;
}

describe('HEAD on the control endpoint', () => {
  it('is answered wherever GET is: the same status and headers, no body (it was a 405)', async () => {
    const at = await control();
    for (const path of ['/metrics', '/stats', '/connections', '/link', '/']) {
      const get = await controlRequest(at, 'GET', path);
      const head = await controlRequest(at, 'HEAD', path);
      expect([path, head.status, head.headers['content-type'], head.headers['content-length'], head.body]).toEqual([
        path,
        get.status,
        get.headers['content-type'],
        get.headers['content-length'],
        '',
      ]);
      expect(get.status).toBe(200);
    }
  });

  it("the events stream's HEAD ends after its headers instead of staying open", async () => {
    const at = await control();
    const head = await controlRequest(at, 'HEAD', '/events');
    expect([head.status, head.headers['content-type'], head.body]).toEqual([200, 'text/event-stream', '']);
  });

  it('a 405 lists HEAD beside GET, in its Allow header too; HEAD where there is no GET is still a 405', async () => {
    const at = await control();
    const post = await controlRequest(at, 'DELETE', '/stats');
    expect([post.status, post.headers.allow, JSON.parse(post.body)]).toEqual([405, 'GET, HEAD', { error: 'method DELETE not allowed on /stats; allowed: GET, HEAD' }]);
    const reset = await controlRequest(at, 'HEAD', '/reset');
    expect([reset.status, reset.headers.allow, reset.body]).toEqual([405, 'POST', '']);
  });
});
