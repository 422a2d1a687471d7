import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, NetworkError } from '../../src/errors.js';
import type { ControlHandlers } from '../../src/proxy/control.js';
import { planControl, startControl } from '../../src/proxy/start-control.js';
import { NO_DELAY } from '../../src/link/types.js';
import { controlRequest } from '../hardening/helpers/http.js';

/** Handlers that answer fixed values and record what the endpoint asked of them. */
function handlers() {
  const calls: string[] = [];
  const h: ControlHandlers = {
    stats: () => ({ totals: { roundTrips: 7 }, commands: {}, connections: { active: 1, total: 2 }, link: { ...NO_DELAY } }) as never,
    metrics: () => 'redis_rtt_up 1\n',
    setLink: (u, node) => {
      calls.push(`setLink ${JSON.stringify(u)} ${node}`);
      return { link: { nodes: [node] }, warnings: [`${node}: a warning`] };
    },
    linkOf: (node) => {
      calls.push(`linkOf ${node}`);
      return { nodes: [node] };
    },
    statsOf: (node) => {
      calls.push(`statsOf ${node}`);
      return { nodes: [node] };
    },
    reset: () => void calls.push('reset'),
    connections: () => [],
    commandLatencyUs: () => [],
  };
  return { h, calls };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe('planControl', () => {
  it('is nothing without --control, and checks address and policy before anything listens', () => {
    expect(planControl({})).toBeUndefined();
    expect(planControl({ control: '127.0.0.1:0' })).toEqual({ at: { kind: 'tcp', host: '127.0.0.1', port: 0 }, access: { token: undefined, allowHosts: undefined }, warning: undefined });
    expect(() => planControl({ control: 'nope:port' })).toThrow(ConfigError);
    expect(() => planControl({ control: '0.0.0.0:0' })).toThrow(/--control.*--allow-host/);
    expect(planControl({ control: '0.0.0.0:0', controlToken: 't' })?.warning).toMatch(/reachable from other machines/);
  });
});

describe('startControl', () => {
  it('starts nothing without a plan', async () => {
    expect(await startControl(undefined, handlers().h, () => undefined)).toBeUndefined();
  });

  it("serves the mode's handlers: /stats, /metrics, PUT /link?node=, POST /reset", async () => {
    const { h, calls } = handlers();
    const logs: string[] = [];
    const control = (await startControl(planControl({ control: '127.0.0.1:0' }), h, (l) => logs.push(l)))!;
    closers.push(() => control.close());
    expect(control.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(JSON.parse((await controlRequest(control.address, 'GET', '/stats')).body)).toMatchObject({ totals: { roundTrips: 7 } });
    expect((await controlRequest(control.address, 'GET', '/metrics')).body).toBe('redis_rtt_up 1\n');
    const put = await controlRequest(control.address, 'PUT', '/link?node=masters', { body: '{"rttUs": 1000}' });
    expect([put.status, JSON.parse(put.body)]).toEqual([200, { nodes: ['masters'], warnings: ['masters: a warning'] }]);
    expect((await controlRequest(control.address, 'POST', '/reset')).status).toBe(200);
    expect(calls).toEqual(['setLink {"rttUs":1000} masters', 'reset']);
    expect(logs).toEqual([]);
  });

  it('a repeated ?node= is a 400 naming it, on /stats and /link: not the first value alone', async () => {
    // GET /stats?node=a&node=b answered for a only, and the caller read it as both.
    const { h, calls } = handlers();
    const control = (await startControl(planControl({ control: '127.0.0.1:0' }), h, () => undefined))!;
    closers.push(() => control.close());
    for (const [method, path] of [['GET', '/stats'], ['GET', '/link'], ['PUT', '/link']] as const) {
      const r = await controlRequest(control.address, method, `${path}?node=masters&node=replicas`, method === 'PUT' ? { body: '{"rttUs": 1000}' } : {});
      expect([r.status, r.body], `${method} ${path}`).toEqual([400, expect.stringContaining(`?node= given 2 times in ${path}; give it once`)]);
    }
    expect(calls).toEqual([]);
    const one = await controlRequest(control.address, 'GET', '/stats?node=masters');
    expect([one.status, calls]).toEqual([200, ['statsOf masters']]);
  });

  it('guards with the plan: the token, and the warning logged when it starts', async () => {
    const logs: string[] = [];
    const plan = planControl({ control: '127.0.0.1:0', controlToken: 's3cret' })!;
    const control = (await startControl({ ...plan, warning: 'reachable from elsewhere' }, handlers().h, (l) => logs.push(l)))!;
    closers.push(() => control.close());
    expect(logs).toEqual(['warning: reachable from elsewhere']);
    expect((await controlRequest(control.address, 'GET', '/stats')).status).toBe(401);
    expect((await controlRequest(control.address, 'GET', '/stats', { token: 's3cret' })).status).toBe(200);
  });

  it('an address in use rejects with a NetworkError naming --control', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    closers.push(() => new Promise<void>((r) => taken.close(() => r())));
    const port = (taken.address() as net.AddressInfo).port;
    const err = await startControl(planControl({ control: `127.0.0.1:${port}` }), handlers().h, () => undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).message).toBe(`--control 127.0.0.1:${port}: address already in use`);
    expect((err as NetworkError).code).toBe('EADDRINUSE');
  });
});
