import type { Rng } from './rng.js';

/**
 * Seeded RESP for fuzzing: valid requests and replies, mutations of them, and garbage that a framer
 * must give up on. Commands are harmless ones (no FLUSHALL, SHUTDOWN, CONFIG SET, DEBUG): mutations
 * flip bytes, they do not spell new command names.
 */

const CRLF = '\r\n';

function bulk(s: Buffer | string): Buffer {
  const b = Buffer.isBuffer(s) ? s : Buffer.from(s);
  return Buffer.concat([Buffer.from(`$${b.length}${CRLF}`), b, Buffer.from(CRLF)]);
}

export function encodeRequest(args: (string | Buffer)[]): Buffer {
  return Buffer.concat([Buffer.from(`*${args.length}${CRLF}`), ...args.map(bulk)]);
}

function key(rng: Rng): string {
  return `fz:${rng.int(20)}`;
}

function value(rng: Rng): Buffer {
  // Values may hold any byte, CR and LF included: the framer must count, not scan.
  return rng.chance(0.5) ? Buffer.from(`v${rng.int(1000)}`) : rng.bytes(rng.int(rng.chance(0.1) ? 70_000 : 64));
}

const COMMANDS: ((rng: Rng) => (string | Buffer)[])[] = [
  () => ['PING'],
  (r) => ['ECHO', value(r)],
  (r) => ['SET', key(r), value(r)],
  (r) => ['GET', key(r)],
  (r) => ['INCR', `fz:n${r.int(5)}`],
  (r) => ['DEL', key(r), key(r)],
  (r) => ['MGET', key(r), key(r), key(r)],
  (r) => ['MSET', key(r), value(r), key(r), value(r)],
  (r) => ['LPUSH', `fz:l${r.int(3)}`, value(r)],
  (r) => ['LRANGE', `fz:l${r.int(3)}`, '0', '-1'],
  (r) => ['HSET', `fz:h${r.int(3)}`, 'f', value(r)],
  (r) => ['HGETALL', `fz:h${r.int(3)}`],
  (r) => ['ZADD', 'fz:z', String(r.int(100)), `m${r.int(10)}`],
  () => ['ZRANGE', 'fz:z', '0', '-1', 'WITHSCORES'],
  (r) => ['SUBSCRIBE', `fz:ch${r.int(3)}`],
  (r) => ['UNSUBSCRIBE', `fz:ch${r.int(3)}`],
  (r) => ['PSUBSCRIBE', `fz:*${r.int(3)}`],
  (r) => ['PUBLISH', `fz:ch${r.int(3)}`, value(r)],
  () => ['MULTI'],
  () => ['EXEC'],
  () => ['DISCARD'],
  (r) => ['CLIENT', 'REPLY', r.pick(['ON', 'OFF', 'SKIP'])],
  (r) => ['HELLO', r.pick(['2', '3'])],
  () => ['RESET'],
  (r) => ['WATCH', key(r)],
  () => ['EVAL', 'return {1, "two", {3, false}, redis.error_reply("FZ oops")}', '0'],
  () => ['EVAL', 'return redis.status_reply("FINE")', '0'],
  (r) => ['XADD', 'fz:s', '*', 'f', value(r)],
  (r) => ['XREAD', 'COUNT', '2', 'STREAMS', 'fz:s', r.pick(['0', '$'])],
  (r) => ['BLPOP', `fz:l${r.int(3)}`, '0.01'],
  (r) => ['NOSUCHCOMMAND', value(r)],
  () => ['CLIENT', 'SETNAME', 'fuzz'],
  () => ['TYPE', 'fz:1'],
];

/** One valid request, as RESP or (sometimes) inline. */
export function request(rng: Rng): Buffer {
  const args = rng.pick(COMMANDS)(rng);
  if (rng.chance(0.1) && args.every((a) => typeof a === 'string' && /^[\w:*.-]+$/.test(a))) {
    return Buffer.from(`${args.join(' ')}${CRLF}`);
  }
  return encodeRequest(args);
}

export function requests(rng: Rng, max: number): Buffer {
  return Buffer.concat(Array.from({ length: 1 + rng.int(max) }, () => request(rng)));
}

/** One valid RESP3 (or RESP2) reply, nested up to `depth`. */
export function reply(rng: Rng, depth = 3): Buffer {
  const leaf = depth <= 0 || rng.chance(0.5);
  if (leaf) {
    switch (rng.int(11)) {
      case 0:
        return Buffer.from(`+${rng.pick(['OK', 'PONG', 'QUEUED', 'string'])}${CRLF}`);
      case 1:
        return Buffer.from(`-${rng.pick(['ERR bad', 'WRONGTYPE Operation', 'MOVED 1 x:1', 'NOSCRIPT x'])}${CRLF}`);
      case 2:
        return Buffer.from(`:${rng.int(1e9) - 5e8}${CRLF}`);
      case 3:
        return bulk(value(rng));
      case 4:
        return Buffer.from(`$-1${CRLF}`);
      case 5:
        return Buffer.from(`_${CRLF}`);
      case 6:
        return Buffer.from(`,${rng.pick(['1.5', 'inf', '-inf', 'nan', '3e10'])}${CRLF}`);
      case 7:
        return Buffer.from(`#${rng.pick(['t', 'f'])}${CRLF}`);
      case 8:
        return Buffer.from(`(${'9'.repeat(1 + rng.int(40))}${CRLF}`);
      case 9: {
        const b = value(rng);
        return Buffer.concat([Buffer.from(`!${b.length}${CRLF}`), b, Buffer.from(CRLF)]);
      }
      default: {
        const b = Buffer.concat([Buffer.from('txt:'), value(rng)]);
        return Buffer.concat([Buffer.from(`=${b.length}${CRLF}`), b, Buffer.from(CRLF)]);
      }
    }
  }
  const n = rng.int(5);
  const kind = rng.pick(['*', '*', '~', '>', '%', '|']);
  const items: Buffer[] = [];
  if (kind === '>') items.push(bulk(rng.pick(['message', 'invalidate', 'pmessage', 'subscribe'])));
  for (let i = 0; i < n; i++) items.push(reply(rng, depth - 1));
  if (kind === '%' || kind === '|') {
    for (let i = 0; i < n; i++) items.push(reply(rng, depth - 1));
    const head = Buffer.from(`${kind}${n}${CRLF}`);
    // An attribute (|) decorates the reply that follows it.
    return kind === '|' ? Buffer.concat([head, ...items, reply(rng, 0)]) : Buffer.concat([head, ...items]);
  }
  const count = kind === '>' ? n + 1 : n;
  return Buffer.concat([Buffer.from(`${kind}${count}${CRLF}`), ...items]);
}

export function replies(rng: Rng, max: number): Buffer {
  return Buffer.concat(Array.from({ length: 1 + rng.int(max) }, () => reply(rng)));
}

/** Damages a valid stream the ways a broken client, server or network would. */
export function mutate(rng: Rng, input: Buffer): Buffer {
  let b = Buffer.from(input);
  const rounds = 1 + rng.int(3);
  for (let r = 0; r < rounds && b.length > 0; r++) {
    const at = rng.int(b.length);
    switch (rng.int(7)) {
      case 0: // flip one byte
        b[at] = rng.int(256);
        break;
      case 1: // insert random bytes
        b = Buffer.concat([b.subarray(0, at), rng.bytes(1 + rng.int(8)), b.subarray(at)]);
        break;
      case 2: // delete a range
        b = Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + rng.int(16)))]);
        break;
      case 3: // duplicate a range
        b = Buffer.concat([b.subarray(0, at), b.subarray(at, at + 1 + rng.int(32)), b.subarray(at)]);
        break;
      case 4: // truncate
        b = b.subarray(0, at);
        break;
      case 5: {
        // change a digit: a length that no longer matches its data
        const digits = [...b.keys()].filter((i) => b[i]! >= 0x30 && b[i]! <= 0x39);
        if (digits.length > 0) b[rng.pick(digits)] = 0x30 + rng.int(10);
        break;
      }
      default: // a line ending without its CR, or a stray CR
        b[at] = rng.chance(0.5) ? 0x0a : 0x0d;
    }
  }
  return b;
}

/** Requests no framer can follow: a framer must count the rest as unparsed and keep forwarding. */
export function badRequest(rng: Rng): Buffer {
  const tail = Buffer.concat([requests(rng, 3), rng.bytes(rng.int(64))]);
  const heads = ['*x\r\n', '*1\r\nX3\r\nGET\r\n', '*1\r\n$abc\r\n', '*2\r\n$3\r\nGET\r\n$-7\r\n', '*1\r\n$1\r\nxyz\r\n'];
  return Buffer.concat([Buffer.from(rng.pick(heads)), tail]);
}

/** Replies no framer can follow (an unknown type byte or a broken length). */
export function badReply(rng: Rng): Buffer {
  const heads = ['Z\r\n', '\x00garbage\r\n', '@12\r\n', '$abc\r\n', '*x\r\n', '$3\r\nabcdef\r\n'];
  return Buffer.concat([Buffer.from(rng.pick(heads)), replies(rng, 3), rng.bytes(rng.int(64))]);
}

/** Pure noise, sometimes starting like RESP. */
export function noise(rng: Rng): Buffer {
  const prefix = rng.pick(['', '*', '$', '+', '-', ':', '*3\r\n', '%', '>']);
  return Buffer.concat([Buffer.from(prefix), rng.bytes(1 + rng.int(rng.chance(0.05) ? 100_000 : 300))]);
}
