import type tls from 'node:tls';
import type { Endpoint } from '../endpoint.js';
import { ReplyFramer } from '../resp/reply-framer.js';
import { parseFrame, type RespNode } from '../resp/reply-tree.js';
import { dialRedis, readyEvent } from './dial.js';

/** One reply: strings, errors and numbers as text (UTF-8), nulls as null; aggregates with their elements. */
export interface RawReply {
  /** The RESP type byte as a character: `+ - : $ *`, and RESP3's `% ~ _ , # ( = !`. */
  type: string;
  text: string | null;
  /** Elements of an aggregate reply (a map's keys and values alternate). */
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

function toRaw(node: RespNode): RawReply {
  const text = node.text === null ? null : Buffer.from(node.text, 'latin1').toString('utf8');
  return node.items ? { type: node.type, text, items: node.items.map(toRaw) } : { type: node.type, text };
}

/**
 * Sends commands on a fresh connection (no client library, so readiness checks work before any
 * client is configured) and resolves with one reply per command. A connection closed by the
 * server resolves with the replies read so far (SHUTDOWN answers nothing). The reply framer finds
 * where each reply ends; reply-tree reads it.
 */
export function rawCommands(
  at: Endpoint,
  commands: readonly (readonly string[])[],
  timeoutMs = 1000,
  secure?: tls.ConnectionOptions,
): Promise<RawReply[]> {
  return new Promise((resolve, reject) => {
    const dial = { tls: secure };
    const socket = dialRedis(at, dial);
    const replies: RawReply[] = [];
    /** Bytes not yet part of a whole reply, and the stream offset of their first byte. */
    let pending: Buffer = Buffer.alloc(0);
    let pendingAt = 0;
    let lastEnd = 0;
    let settled = false;
    const finish = (err?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(replies);
    };
    const framer = new ReplyFramer({
      frame: (f) => {
        const bytes = pending.subarray(f.start - pendingAt, f.end - pendingAt);
        replies.push(toRaw(parseFrame(bytes)));
        lastEnd = f.end;
      },
      desync: (offset, reason) => finish(new Error(`not a RESP reply at byte ${offset}: ${reason}`)),
    });
    const timer = setTimeout(() => finish(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
    socket.on(readyEvent(dial), () => socket.write(Buffer.concat(commands.map((c) => encodeCommand(c)))));
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      try {
        framer.push(chunk);
      } catch (err) {
        finish(err as Error); // a frame reply-tree cannot read (a streamed aggregate)
        return;
      }
      // Keep only the bytes after the last whole reply.
      pending = pending.subarray(lastEnd - pendingAt);
      pendingAt = lastEnd;
      if (replies.length >= commands.length) finish();
    });
    socket.on('error', (err) => finish(err));
    socket.on('close', () => finish());
  });
}

/** A map reply's value for `key` as text (a RESP3 map, or the flat key/value array RESP2 sends for one). */
export function rawField(reply: RawReply, key: string): string | undefined {
  const items = reply.items ?? [];
  for (let i = 0; i + 1 < items.length; i += 2) if (items[i]!.text === key) return items[i + 1]!.text ?? undefined;
  return undefined;
}
