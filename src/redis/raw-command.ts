import net from 'node:net';
import tls from 'node:tls';

/** Where a raw connection goes: TCP host/port (over TLS when `tls` is set) or a unix socket path. */
export type RawTarget = { host: string; port: number; tls?: tls.ConnectionOptions } | { path: string };

/** One reply as read by the tiny reader below: simple/error strings and integers as text, bulk as text or null. */
export interface RawReply {
  type: '+' | '-' | ':' | '$' | '*';
  text: string | null;
  /** Elements of an array reply. */
  items?: RawReply[];
}

/** Encodes a command as a RESP array of bulk strings. */
export function encodeCommand(args: readonly string[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const a of args) {
    const b = Buffer.from(a);
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/**
 * Parses one top-level reply at `buf` (RESP2 types only: what PING, INFO, CONFIG GET, AUTH produce).
 * Returns the reply and the bytes it used, or null when more bytes are needed.
 */
export function parseRawReply(buf: Buffer): { reply: RawReply; used: number } | null {
  const eol = buf.indexOf('\r\n');
  if (eol < 0) return null;
  const type = String.fromCharCode(buf[0] ?? 0);
  const head = buf.subarray(1, eol).toString('utf8');
  if (type === '+' || type === '-' || type === ':') return { reply: { type, text: head }, used: eol + 2 };
  if (type === '$') {
    const len = Number(head);
    if (len < 0) return { reply: { type, text: null }, used: eol + 2 };
    if (buf.length < eol + 2 + len + 2) return null;
    return { reply: { type, text: buf.subarray(eol + 2, eol + 2 + len).toString('utf8') }, used: eol + 2 + len + 2 };
  }
  if (type === '*') {
    const count = Number(head);
    const items: RawReply[] = [];
    let used = eol + 2;
    for (let i = 0; i < count; i++) {
      const item = parseRawReply(buf.subarray(used));
      if (!item) return null;
      items.push(item.reply);
      used += item.used;
    }
    return { reply: { type, text: null, items }, used };
  }
  throw new Error(`unexpected reply type byte ${JSON.stringify(type)}`);
}

/**
 * Sends commands on a fresh connection (no client library, so readiness checks work before any
 * client is configured) and resolves with one reply per command. A connection closed by the
 * server resolves with the replies read so far (SHUTDOWN answers nothing).
 */
export function rawCommands(target: RawTarget, commands: readonly (readonly string[])[], timeoutMs = 1000): Promise<RawReply[]> {
  return new Promise((resolve, reject) => {
    const socket =
      'path' in target
        ? net.connect({ path: target.path })
        : target.tls
          ? tls.connect({ ...target.tls, host: target.host, port: target.port })
          : net.connect({ host: target.host, port: target.port });
    const replies: RawReply[] = [];
    let pending: Buffer = Buffer.alloc(0);
    let settled = false;
    const finish = (err?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(replies);
    };
    const timer = setTimeout(() => finish(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
    socket.on('path' in target || !target.tls ? 'connect' : 'secureConnect', () => socket.write(Buffer.concat(commands.map((c) => encodeCommand(c)))));
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      try {
        for (let r = parseRawReply(pending); r; r = parseRawReply(pending)) {
          replies.push(r.reply);
          pending = pending.subarray(r.used);
        }
      } catch (err) {
        finish(err as Error);
        return;
      }
      if (replies.length >= commands.length) finish();
    });
    socket.on('error', (err) => finish(err));
    socket.on('close', () => finish());
  });
}
