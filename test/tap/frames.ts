/**
 * Hand-made frames for correlator tests: a `Wire` keeps the up and down stream offsets so each
 * frame gets the start/end a real framer would give it, and times are plain numbers (fake clock).
 */
import { commandName } from '../../src/resp/command-name.js';
import { RespType, type ReplyFrame, type RequestFrame } from '../../src/resp/types.js';
import { CommandTable } from '../../src/tap/command-table.js';
import type { TapEvent } from '../../src/stats/types.js';
import { Correlator } from '../../src/tap/correlator.js';
import type { PendingBudget } from '../../src/tap/pending-budget.js';

/** The RESP encoding of a command (what a client sends). */
export function encodeCommand(args: readonly string[]): Buffer {
  let s = `*${args.length}\r\n`;
  for (const a of args) s += `$${Buffer.byteLength(a)}\r\n${a}\r\n`;
  return Buffer.from(s);
}

export interface ReplySpec {
  type: number;
  /** Bytes the frame takes on the wire (made up unless given). */
  bytes?: number;
  simple?: string;
  errorPrefix?: string;
  elements?: number;
  head?: string;
  lastInt?: number;
}

export const ok: ReplySpec = { type: RespType.SimpleString, simple: 'OK', bytes: 5 };
export const queued: ReplySpec = { type: RespType.SimpleString, simple: 'QUEUED', bytes: 9 };
export const bulk: ReplySpec = { type: RespType.BulkString, bytes: 9 };
export const simple = (text: string): ReplySpec => ({ type: RespType.SimpleString, simple: text.length <= 32 ? text : undefined, bytes: text.length + 3 });
export const err = (prefix: string): ReplySpec => ({ type: RespType.Error, errorPrefix: prefix, bytes: prefix.length + 20 });
export const arr = (head: string, elements: number, lastInt?: number): ReplySpec => ({ type: RespType.Array, head, elements, lastInt, bytes: 30 });
export const push = (head: string, elements: number, lastInt?: number): ReplySpec => ({ type: RespType.Push, head, elements, lastInt, bytes: 30 });
export const map: ReplySpec = { type: RespType.Map, elements: 7, bytes: 120 };

export class Wire {
  readonly events: TapEvent[] = [];
  readonly commands = new CommandTable();
  readonly c: Correlator;
  upOffset = 0;
  downOffset = 0;

  constructor(opts: { keyHash?: (key: Buffer) => string; events?: boolean; budget?: PendingBudget } = {}) {
    this.c = new Correlator({
      conn: 7,
      commands: this.commands,
      onEvent: opts.events === false ? undefined : (e) => this.events.push(e),
      keyHash: opts.keyHash,
      budget: opts.budget,
    });
  }

  /** The client sends `args` (arriving at `nowNs`); returns the request's end offset. */
  send(args: readonly string[], nowNs: number, argSizes?: number[]): number {
    const bytes = encodeCommand(args);
    const frame: RequestFrame = {
      start: this.upOffset,
      end: this.upOffset + bytes.length,
      inline: false,
      argc: args.length,
      head: args.slice(0, 7).map((a) => Buffer.from(a)),
      argSizes,
    };
    this.upOffset = frame.end;
    this.c.request(frame, commandName(frame.head, frame.argc), nowNs);
    return frame.end;
  }

  /** Everything the client sent so far reached Redis at `nowNs`. */
  sent(nowNs: number): void {
    this.c.upWritten(this.upOffset, nowNs);
  }

  /** Redis sends a frame whose first byte reached the proxy at `firstByteNs`. */
  reply(spec: ReplySpec, firstByteNs: number): ReplyFrame {
    const bytes = spec.bytes ?? 10;
    const frame: ReplyFrame = {
      start: this.downOffset,
      end: this.downOffset + bytes,
      type: spec.type,
      errorPrefix: spec.errorPrefix,
      simple: spec.simple,
      elements: spec.elements,
      head: spec.head,
      lastInt: spec.lastInt,
    };
    this.downOffset = frame.end;
    this.c.reply(frame, firstByteNs);
    return frame;
  }

  /** Everything Redis sent so far reached the client at `nowNs`. */
  delivered(nowNs: number): void {
    this.c.downWritten(this.downOffset, nowNs);
  }

  /** One full exchange: send, write to Redis, reply, deliver, each 1 us apart from `t0Ns`. */
  roundTrip(args: readonly string[], reply: ReplySpec, t0Ns: number): void {
    this.send(args, t0Ns);
    this.sent(t0Ns + 1000);
    this.reply(reply, t0Ns + 2000);
    this.delivered(t0Ns + 3000);
  }

  commandEvents(): Extract<TapEvent, { type: 'command' }>[] {
    return this.events.filter((e): e is Extract<TapEvent, { type: 'command' }> => e.type === 'command');
  }

  pushEvents(): Extract<TapEvent, { type: 'push' }>[] {
    return this.events.filter((e): e is Extract<TapEvent, { type: 'push' }> => e.type === 'push');
  }
}
