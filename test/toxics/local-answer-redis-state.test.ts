import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { collect, rawSocket } from '../proxy/helpers.js';

/**
 * A command a Redis-aware toxic answers in Redis's place leaves Redis's connection state as Redis
 * would have: under CLIENT REPLY OFF/SKIP it gets no reply, an error included; and what lasts
 * one command (CLIENT REPLY SKIP, CLIENT CACHING) ends at it, not at the next command Redis reads.
 */
let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

function cmd(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

async function exchange(port: number, host: string, requests: string): Promise<string> {
  const s = await rawSocket(host, port);
  const all = collect(s);
  s.write(requests + cmd('QUIT'));
  const got = (await all).toString('latin1');
  // Half-open (allowHalfOpen) after the proxy's FIN: left as is, it stays open for the files after this one.
  s.destroy();
  return got;
}

describe('redis_error under CLIENT REPLY OFF and SKIP', () => {
  it('answers nothing where Redis would answer nothing, and the skip ends where the client expects', async () => {
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
      toxics: [{ type: 'redis_error', attributes: { commands: ['GET'], keys: 'err:*', error: 'LOADING Redis is loading' } }],
    });
    try {
      const { host = '127.0.0.1', port = 0 } = p;
      expect(await exchange(port, host, cmd('SET', 'k', 'v') + cmd('GET', 'err:1'))).toBe('+OK\r\n-LOADING Redis is loading\r\n+OK\r\n');
      const off = cmd('CLIENT', 'REPLY', 'OFF') + cmd('GET', 'err:1') + cmd('SET', 'k', 'w') + cmd('CLIENT', 'REPLY', 'ON') + cmd('GET', 'k');
      expect(await exchange(port, host, off)).toBe('+OK\r\n$1\r\nw\r\n+OK\r\n');
      const skip = cmd('CLIENT', 'REPLY', 'SKIP') + cmd('GET', 'err:1') + cmd('GET', 'k') + cmd('PING');
      expect(await exchange(port, host, skip)).toBe('$1\r\nw\r\n+PONG\r\n+OK\r\n');
      expect(p.stats().toxics?.[0]?.applications).toBe(3);
      const t = p.stats().totals;
      expect([t.commands, t.replies, t.pushes]).toEqual([14, 9, 0]);
    } finally {
      await p.close();
    }
  });

  it('a CLIENT REPLY OFF or MONITOR answered in Redis\'s place changes no reply mode in the counts: Redis never saw it', async () => {
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
      toxics: [{ type: 'redis_error', attributes: { commands: ['CLIENT', 'MONITOR'], error: 'ERR disabled' } }],
    });
    try {
      const { host = '127.0.0.1', port = 0 } = p;
      const requests = cmd('CLIENT', 'REPLY', 'OFF') + cmd('PING') + cmd('MONITOR') + cmd('MONITOR') + cmd('ECHO', 'e');
      expect(await exchange(port, host, requests)).toBe('-ERR disabled\r\n+PONG\r\n-ERR disabled\r\n-ERR disabled\r\n$1\r\ne\r\n+OK\r\n');
      await vi.waitUntil(() => p.connections().every((c) => c.outstanding === 0), { timeout: 5000, interval: 5 });
      const s = p.stats();
      expect(s.totals).toMatchObject({ commands: 6, replies: 6, pushes: 0, errorReplies: 3, roundTrips: 1 });
      expect(s.commands['PING']?.clientUs.count).toBe(1);
      expect(s.commands['MONITOR']?.clientUs.count).toBe(2);
      expect(s.commands['QUIT']?.clientUs.count).toBe(1);
    } finally {
      await p.close();
    }
  });

  it('an empty request (blank line, *0, *-1) ends a skip: counts and the order of an injected reply follow Redis', async () => {
    const plain = await startSingleNodeProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, log: () => undefined });
    const toxic = await startSingleNodeProxy({
      upstream: redis.address,
      // The injected reply waits out the up delay, so a reply matched to the wrong request would overtake it.
      link: { upUs: 2000, downUs: 0 },
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
      toxics: [{ type: 'redis_error', attributes: { commands: ['GET'], keys: 'err:*', error: 'ERR injected' } }],
    });
    try {
      for (const empty of ['\r\n', '   \n', '*0\r\n', '*-1\r\n']) {
        const requests = cmd('CLIENT', 'REPLY', 'SKIP') + empty + cmd('PING') + cmd('GET', 'err:1') + cmd('ECHO', 'e');
        expect(await exchange(plain.port ?? 0, plain.host ?? '127.0.0.1', requests)).toBe('+PONG\r\n$-1\r\n$1\r\ne\r\n+OK\r\n');
        expect(await exchange(toxic.port ?? 0, toxic.host ?? '127.0.0.1', requests)).toBe('+PONG\r\n-ERR injected\r\n$1\r\ne\r\n+OK\r\n');
      }
      // An injected reply right after the empty request: the skip is over, it is answered.
      const after = cmd('CLIENT', 'REPLY', 'SKIP') + '\r\n' + cmd('GET', 'err:1') + cmd('PING');
      expect(await exchange(toxic.port ?? 0, toxic.host ?? '127.0.0.1', after)).toBe('-ERR injected\r\n+PONG\r\n+OK\r\n');
      const t = plain.stats().totals;
      expect([t.commands, t.replies, t.pushes]).toEqual([20, 16, 0]);
    } finally {
      await plain.close();
      await toxic.close();
    }
  });

  it('CLIENT CACHING (tracking OPTIN/OPTOUT) ends at the injected command, as at a command Redis rejects', async () => {
    // Redis's own error for an unknown command: the proxy's bytes must equal a direct connection's.
    const error = "ERR unknown command 'NOSUCHCMD', with args beginning with: ";
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
      toxics: [{ type: 'redis_error', attributes: { commands: ['NOSUCHCMD'], error } }],
    });
    try {
      for (const [mode, caching] of [['OPTIN', 'YES'], ['OPTOUT', 'NO']] as const) {
        const requests = cmd('HELLO', '3') + cmd('CLIENT', 'TRACKING', 'ON', mode) + cmd('CLIENT', 'CACHING', caching) +
          cmd('NOSUCHCMD') + cmd('GET', 'c:1') + cmd('SET', 'c:1', 'v') + cmd('DEL', 'c:1') + cmd('PING');
        const direct = (await exchange(redis.port ?? 0, '127.0.0.1', requests)).replace(/id\r\n:\d+/, 'id');
        const proxied = (await exchange(p.port ?? 0, p.host ?? '127.0.0.1', requests)).replace(/id\r\n:\d+/, 'id');
        expect(proxied).toBe(direct);
        expect(direct.includes('invalidate')).toBe(mode === 'OPTOUT');
      }
    } finally {
      await p.close();
    }
  });

  it('an EXEC answered in Redis\'s place discards the transaction, as Redis does with an EXEC it rejects', async () => {
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
      toxics: [{ type: 'redis_error', attributes: { commands: ['EXEC'], error: 'EXECABORT Transaction discarded' } }],
    });
    try {
      const { host = '127.0.0.1', port = 0 } = p;
      const tx = cmd('MULTI') + cmd('SET', 'x:1', 'v') + cmd('EXEC') + cmd('GET', 'x:1') + cmd('EXEC');
      expect(await exchange(port, host, tx)).toBe('+OK\r\n+QUEUED\r\n-EXECABORT Transaction discarded\r\n$-1\r\n-EXECABORT Transaction discarded\r\n+OK\r\n');
      const off = cmd('CLIENT', 'REPLY', 'OFF') + cmd('MULTI') + cmd('SET', 'x:1', 'v') + cmd('EXEC') + cmd('CLIENT', 'REPLY', 'ON') + cmd('GET', 'x:1');
      expect(await exchange(port, host, off)).toBe('+OK\r\n$-1\r\n+OK\r\n');
      expect(p.stats().toxics?.[0]?.applications).toBe(3);
      const t = p.stats().totals;
      expect([t.commands, t.replies, t.errorReplies]).toEqual([13, 9, 2]);
    } finally {
      await p.close();
    }
  });
});

describe('the frame stages turn off (a request desync, an EXEC whose replies cannot be followed) only once what they hold is through', () => {
  it('an answer waiting for an earlier reply keeps its place, and a dropped reply stays dropped', async () => {
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
      toxics: [
        { type: 'redis_error', attributes: { commands: ['PING'], error: 'ERR local' } },
        { type: 'redis_drop', attributes: { commands: ['GET'], keys: 'drop:*', close: true } },
      ],
    });
    try {
      const { host = '127.0.0.1', port = 0 } = p;
      const bad = '*1\r\n$x\r\n';
      // CLIENT REPLY in MULTI: Redis's replies after that EXEC cannot be matched to requests.
      const unfollowable = cmd('MULTI') + cmd('CLIENT', 'REPLY', 'ON') + cmd('EXEC');
      // The answer went to the client at the fall back, ahead of GET's reply (or PING reached Redis, framed with the bad request).
      const desync = await exchange(port, host, cmd('SET', 'k', 'v') + cmd('GET', 'k') + cmd('PING') + bad);
      expect(desync).toBe('+OK\r\n$1\r\nv\r\n-ERR local\r\n-ERR Protocol error: invalid bulk length\r\n');
      // The client's FIN waits behind the bad request: Redis answers it before it reads the end.
      const halfClosed = await rawSocket(host, port);
      const all = collect(halfClosed);
      halfClosed.end(cmd('SET', 'k', 'v') + cmd('GET', 'k') + cmd('PING') + bad);
      expect((await all).toString('latin1')).toBe(desync);
      const exec = await exchange(port, host, cmd('SET', 'k', 'v') + cmd('GET', 'k') + cmd('PING') + unfollowable + cmd('GET', 'k'));
      expect(exec).toBe('+OK\r\n$1\r\nv\r\n-ERR local\r\n+OK\r\n+QUEUED\r\n*1\r\n+OK\r\n$1\r\nv\r\n+OK\r\n');
      // The dropped reply (and all behind it) went on at the fall back; with `close` the connection closes there.
      expect(await exchange(port, host, cmd('SET', 'k', 'v') + cmd('GET', 'drop:1') + bad)).toBe('+OK\r\n');
      expect(await exchange(port, host, cmd('SET', 'k', 'v') + cmd('GET', 'drop:1') + unfollowable)).toBe('+OK\r\n');
      expect(p.stats().toxics?.map((t) => t.applications)).toEqual([3, 2]);
    } finally {
      await p.close();
    }
  });
});
