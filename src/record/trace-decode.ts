/**
 * One parsed trace line back into what it recorded (format: trace-format.ts): a TapEvent with times
 * relative to the trace start, a link change, or a trailer. Throws an Error naming the bad field; the
 * reader adds the file and line.
 */
import type { CommandEvent, ConnectionEvent, PushEvent, TapEvent, TlsEvent } from '../stats/types.js';
import { NO_DELAY } from '../link/types.js';
import type { LinkChange, NodeLinkChange, TraceEnd, TraceLink, TraceTruncation, TruncationReason } from './trace-format.js';

/** A decoded event line: the TapEvent with times relative to the trace start, or a link change. */
export type DecodedLine =
  | { kind: 'event'; event: TapEvent }
  | { kind: 'link'; change: LinkChange }
  | { kind: 'nodelink'; change: NodeLinkChange }
  | { kind: 'truncated'; truncation: TraceTruncation }
  | { kind: 'end'; end: TraceEnd }
  | { kind: 'unknown' };

/**
 * Decodes one parsed event line; throws an Error naming the field that is wrong. Without `argSizes` a
 * command's "as" is checked and left off its event: never set, rather than deleted after, since a
 * property deleted from each of millions of events made every one a dictionary three times its size.
 */
export function decodeEvent(obj: Record<string, unknown>, argSizes = true): DecodedLine {
  switch (obj.type) {
    case 'cmd': {
      const t = num(obj, 't');
      const event: CommandEvent = {
        type: 'command',
        conn: count(obj, 'c'),
        name: str(obj, 'n'),
        argc: count(obj, 'argc'),
        bytesUp: nonNegative(obj, 'up'),
        bytesDown: nonNegative(obj, 'down'),
        arrivedUs: t,
        sentUs: t + num(obj, 'sent'),
        reply: str(obj, 'r'),
        // 0 is a request in no round trip (CLIENT REPLY OFF); below 0 it would group as one, as 0 once did.
        roundTrip: count(obj, 'rt'),
      };
      if (obj.as !== undefined) {
        if (!Array.isArray(obj.as) || !obj.as.every((n) => typeof n === 'number')) throw new Error('"as" must be an array of numbers');
        if (argSizes) event.argSizes = obj.as as number[];
      }
      if (obj.k !== undefined) event.keyHash = str(obj, 'k');
      if (obj.first !== undefined) event.firstReplyUs = t + num(obj, 'first');
      if (obj.dlv !== undefined) event.deliveredUs = t + num(obj, 'dlv');
      if (obj.err !== undefined) event.errorPrefix = str(obj, 'err');
      if (obj.blk === 1) event.blocking = true;
      if (obj.unsent === 1) event.unsent = true;
      return { kind: 'event', event };
    }
    case 'push': {
      const event: PushEvent = { type: 'push', conn: count(obj, 'c'), atUs: num(obj, 't'), bytes: nonNegative(obj, 'bytes'), kind: str(obj, 'kind') };
      return { kind: 'event', event };
    }
    case 'open':
    case 'close': {
      const event: ConnectionEvent = { type: obj.type, conn: count(obj, 'c'), atUs: num(obj, 't') };
      if (typeof obj.client === 'string') event.client = obj.client;
      // Cluster traces only; absent in single-node ones and in traces recorded before they existed.
      if (typeof obj.node === 'string') event.node = obj.node;
      if (typeof obj.listen === 'string') event.listen = obj.listen;
      return { kind: 'event', event };
    }
    case 'tls': {
      const event: TlsEvent = { type: 'tls', conn: count(obj, 'c'), atUs: num(obj, 't'), version: str(obj, 'v'), resumed: obj.resumed === 1 };
      return { kind: 'event', event };
    }
    case 'link':
      return { kind: 'link', change: { atUs: num(obj, 't'), link: decodeLink(obj.link) } };
    case 'nodelink': {
      const change: NodeLinkChange = { atUs: num(obj, 't'), node: str(obj, 'node'), link: decodeLink(obj.link) };
      if (typeof obj.listen === 'string') change.listen = obj.listen;
      return { kind: 'nodelink', change };
    }
    case 'truncated': {
      const reason = str(obj, 'reason') as TruncationReason;
      return { kind: 'truncated', truncation: { atUs: num(obj, 't'), bytes: num(obj, 'bytes'), reason } };
    }
    case 'end':
      return { kind: 'end', end: { atUs: num(obj, 't'), events: num(obj, 'events'), dropped: num(obj, 'dropped'), bytes: num(obj, 'bytes') } };
    default:
      if (typeof obj.type !== 'string') throw new Error('"type" is missing');
      return { kind: 'unknown' };
  }
}

export function decodeLink(value: unknown): TraceLink {
  if (typeof value !== 'object' || value === null) throw new Error('"link" must be an object');
  const o = value as Record<string, unknown>;
  return {
    // A delay below 0 is no link the proxy can run: the report would say "recorded link RTT -100us".
    upUs: nonNegative(o, 'upUs'),
    downUs: nonNegative(o, 'downUs'),
    jitterUs: typeof o.jitterUs === 'number' ? o.jitterUs : 0,
    jitterDist: (typeof o.jitterDist === 'string' ? o.jitterDist : 'uniform') as TraceLink['jitterDist'],
    bandwidthBps: typeof o.bandwidthBps === 'number' ? o.bandwidthBps : 0,
    // Loss fields are written only when set (trace-format.ts pickLink); absent means no loss.
    lossUp: typeof o.lossUp === 'number' ? o.lossUp : NO_DELAY.lossUp,
    lossDown: typeof o.lossDown === 'number' ? o.lossDown : NO_DELAY.lossDown,
    lossBurst: typeof o.lossBurst === 'number' ? o.lossBurst : NO_DELAY.lossBurst,
    mssBytes: typeof o.mssBytes === 'number' ? o.mssBytes : NO_DELAY.mssBytes,
    handshake: o.handshake === true,
  };
}

function num(o: Record<string, unknown>, field: string): number {
  const v = o[field];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`"${field}" must be a number`);
  return v;
}

function nonNegative(o: Record<string, unknown>, field: string): number {
  const v = num(o, field);
  if (v < 0) throw new Error(`"${field}" must be 0 or more`);
  return v;
}

/** An id, a number or a size the recorder counts from 0: a whole number, 0 or more. */
function count(o: Record<string, unknown>, field: string): number {
  const v = num(o, field);
  if (!Number.isInteger(v)) throw new Error(`"${field}" must be a whole number`);
  if (v < 0) throw new Error(`"${field}" must be 0 or more`);
  return v;
}

function str(o: Record<string, unknown>, field: string): string {
  const v = o[field];
  if (typeof v !== 'string') throw new Error(`"${field}" must be a string`);
  return v;
}
