/**
 * The sessions recorded against a real redis-server as fixtures (see record-fixtures.ts), and the
 * helpers that turn scripted requests into bytes plus the frames a RequestFramer should report.
 */

/** One piece of hand-written request bytes. */
export type RawPart =
  | { cmd: (string | Buffer)[]; name?: string } // a multibulk request (name: when not the obvious one)
  | { inline: string; argc: number; name: string } // an inline request, line end included
  | { noop: string }; // bytes Redis reads and ignores (blank lines, `*0`)

export interface Step {
  /** Multibulk requests, sent in one write. */
  send?: (string | Buffer)[][];
  /** Hand-written requests, sent in the same write after `send`. */
  raw?: RawPart[];
  /** Requests on a second, unrecorded connection, sent (and answered) first. */
  side?: string[][];
  /** Frames to wait for on the recorded connection; default one per request sent. */
  expect?: number;
}

export interface Session {
  name: string;
  steps: Step[];
}

export interface ExpectedRequest {
  start: number;
  end: number;
  argc: number;
  name: string;
  inline: boolean;
}

const CONTAINERS = new Set([
  'ACL', 'CLIENT', 'CLUSTER', 'COMMAND', 'CONFIG', 'FUNCTION', 'LATENCY', 'MEMORY', 'MODULE', 'OBJECT', 'PUBSUB',
  'SCRIPT', 'SLOWLOG', 'XGROUP', 'XINFO', 'DEBUG',
]);

/** The name a request should get, by the rule in the brief (independent of command-name.ts). */
export function expectedName(args: readonly (string | Buffer)[]): string {
  const cmd = String(args[0]).toUpperCase();
  return CONTAINERS.has(cmd) && args.length > 1 ? `${cmd} ${String(args[1]).toUpperCase()}` : cmd;
}

export function encode(cmds: readonly (readonly (string | Buffer)[])[]): Buffer {
  const parts: Buffer[] = [];
  for (const args of cmds) {
    parts.push(Buffer.from(`*${args.length}\r\n`));
    for (const a of args) {
      const b = typeof a === 'string' ? Buffer.from(a) : a;
      parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
    }
  }
  return Buffer.concat(parts);
}

/** Bytes of `parts` and the frames they hold, offsets counted from `base`. */
export function buildRequests(parts: readonly RawPart[], base = 0): { bytes: Buffer; frames: ExpectedRequest[] } {
  const chunks: Buffer[] = [];
  const frames: ExpectedRequest[] = [];
  let at = base;
  for (const part of parts) {
    let b: Buffer;
    if ('cmd' in part) {
      b = encode([part.cmd]);
      const name = part.name ?? expectedName(part.cmd);
      frames.push({ start: at, end: at + b.length, argc: part.cmd.length, name, inline: false });
    } else if ('inline' in part) {
      b = Buffer.from(part.inline, 'latin1');
      frames.push({ start: at, end: at + b.length, argc: part.argc, name: part.name, inline: true });
    } else {
      b = Buffer.from(part.noop, 'latin1');
    }
    chunks.push(b);
    at += b.length;
  }
  return { bytes: Buffer.concat(chunks), frames };
}

const ONE_MIB = 1024 * 1024;
const bigValue = Buffer.alloc(ONE_MIB, 'redis-rtt big value 0123456789 ');

export const SESSIONS: Session[] = [
  {
    name: 'resp2-basic',
    steps: [
      { send: [['SET', 'k', 'v']] },
      { send: [['GET', 'k'], ['GET', 'missing'], ['INCR', 'n'], ['INCRBY', 'n', '10'], ['EXISTS', 'k', 'n', 'x']] },
      { send: [['MGET', 'k', 'missing', 'n'], ['LRANGE', 'nolist', '0', '-1'], ['BLPOP', 'nolist', '0.01']] },
      { send: [['NOSUCHCMD', 'a'], ['GET'], ['INCR', 'k'], ['LPUSH', 'k', 'x'], ['DEL', 'k', 'n']] },
      { send: [['client', 'setname', 'fixture'], ['CLIENT', 'GETNAME'], ['CONFIG', 'GET', 'maxmemory'], ['PING']] },
      { send: Array.from({ length: 10 }, (_, i) => ['SET', `key:${i}`, `value-${i}`]) },
      { send: [['ECHO', Buffer.from([0, 1, 2, 13, 10, 255])], ['TYPE', 'key:1'], ['OBJECT', 'ENCODING', 'key:1']] },
    ],
  },
  {
    name: 'resp3-types',
    steps: [
      { send: [['HELLO', '3']] },
      { send: [['HSET', 'h', 'f1', 'v1', 'f2', 'v2'], ['HGETALL', 'h'], ['SADD', 's', 'a', 'b'], ['SMEMBERS', 's']] },
      { send: [['ZADD', 'z', '1.5', 'm'], ['ZSCORE', 'z', 'm'], ['ZINCRBY', 'z', '2', 'm'], ['ZRANGE', 'z', '0', '-1', 'WITHSCORES']] },
      { send: [['GET', 'missing'], ['EVAL', 'redis.setresp(3); return true', '0'], ['EVAL', 'redis.setresp(3); return false', '0']] },
      { send: [['EVAL', "redis.setresp(3); return {big_number='1234567890123456789012345678901234567890'}", '0']] },
      { send: [['EVAL', "redis.setresp(3); return {verbatim_string={format='txt', string='hi there'}}", '0']] },
      { send: [['INFO', 'server'], ['LOLWUT', 'VERSION', '5', '1', '1', '1'], ['CONFIG', 'GET', 'maxmemory']] },
      { send: [['INCR', 'h'], ['EVAL', "return redis.error_reply('MYERR custom failure')", '0']] },
      { send: [['CLIENT', 'TRACKING', 'on'], ['GET', 'tracked']] },
      { side: [['SET', 'tracked', '1']], expect: 1 },
      { send: [['XADD', 'st', '1-1', 'f', 'v'], ['XINFO', 'STREAM', 'st'], ['PING']] },
    ],
  },
  {
    name: 'pubsub-resp2',
    steps: [
      { send: [['SUBSCRIBE', 'c1', 'c2']], expect: 2 },
      { send: [['PSUBSCRIBE', 'news.*']] },
      { side: [['PUBLISH', 'c1', 'hello']], expect: 1 },
      { side: [['PUBLISH', 'news.x', 'hi']], expect: 1 },
      { send: [['PING']] },
      { send: [['UNSUBSCRIBE']], expect: 2 },
      { send: [['PUNSUBSCRIBE']] },
      { send: [['SSUBSCRIBE', 'sc']] },
      { side: [['SPUBLISH', 'sc', 'shard']], expect: 1 },
      { send: [['SUNSUBSCRIBE', 'sc']] },
      { send: [['PING']] },
    ],
  },
  {
    name: 'pubsub-resp3',
    steps: [
      { send: [['HELLO', '3']] },
      { send: [['SUBSCRIBE', 'c1']] },
      { side: [['PUBLISH', 'c1', 'hello']], expect: 1 },
      { send: [['GET', 'missing'], ['PING']] },
      { send: [['PSUBSCRIBE', 'p*']] },
      { side: [['PUBLISH', 'pc', 'pattern']], expect: 1 },
      { send: [['UNSUBSCRIBE', 'c1'], ['PUNSUBSCRIBE', 'p*']] },
    ],
  },
  {
    name: 'multi-exec',
    steps: [
      { send: [['MULTI'], ['SET', 'a', '1'], ['INCR', 'a'], ['LPUSH', 'a', 'x'], ['EXEC']] },
      { send: [['MULTI'], ['SET', 'a'], ['GET', 'a'], ['EXEC']] },
      { send: [['WATCH', 'w']] },
      { side: [['SET', 'w', '1']] },
      { send: [['MULTI'], ['SET', 'w', '2'], ['EXEC']] },
      { send: [['MULTI'], ['PING'], ['DISCARD'], ['EXEC']] },
    ],
  },
  {
    name: 'big-value',
    steps: [{ send: [['SET', 'big', bigValue]] }, { send: [['GET', 'big'], ['STRLEN', 'big']] }],
  },
  {
    name: 'nested',
    steps: [
      { send: [['XADD', 's', '1-1', 'a', '1'], ['XADD', 's', '2-1', 'b', '2', 'c', '3']] },
      { send: [['XRANGE', 's', '-', '+'], ['XREAD', 'COUNT', '2', 'STREAMS', 's', '0'], ['XINFO', 'STREAM', 's']] },
      { send: [['COMMAND', 'INFO', 'GET', 'SET'], ['SCAN', '0'], ['ZADD', 'z', '1', 'a', '2', 'b']] },
      { send: [['ZRANGE', 'z', '0', '-1', 'WITHSCORES'], ['EVAL', 'return {1, {2, {3, {"deep"}}}}', '0']] },
    ],
  },
  {
    name: 'inline',
    steps: [
      { raw: [{ inline: 'PING\r\n', argc: 1, name: 'PING' }] },
      { raw: [{ inline: 'SET k v\r\n', argc: 3, name: 'SET' }, { inline: 'GET k\n', argc: 2, name: 'GET' }] },
      { raw: [{ noop: '\r\n' }, { noop: '   \r\n' }, { noop: '\n' }, { inline: 'ping\r\n', argc: 1, name: 'PING' }] },
      { raw: [{ inline: `SET "a b" 'c d'\r\n`, argc: 3, name: 'SET' }, { inline: 'GET "a b"\r\n', argc: 2, name: 'GET' }] },
      { raw: [{ inline: 'ECHO "hi\\x41\\n"\r\n', argc: 2, name: 'ECHO' }, { cmd: ['GET', 'k'] }] },
      { raw: [{ inline: '  EXISTS   k\t"a b"  \r\n', argc: 3, name: 'EXISTS' }, { noop: '*0\r\n' }] },
      { raw: [{ inline: 'client setname inl\r\n', argc: 3, name: 'CLIENT SETNAME' }] },
    ],
  },
  {
    name: 'monitor',
    steps: [
      { send: [['MONITOR']] },
      { side: [['SET', 'mon', 'x'.repeat(100)], ['GET', 'mon']], expect: 2 },
    ],
  },
];
