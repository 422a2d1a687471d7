/** Drives a real Tap with bytes: the proxy's four calls, with times given by hand (fake clock). */
import { CommandTable } from '../../src/tap/command-table.js';
import type { TapEvent } from '../../src/stats/types.js';
import { Tap, type TapOptions } from '../../src/tap/tap.js';

/** "\r\n"-terminated RESP written with "|" for CRLF, to keep fixtures on one readable line. */
export function resp(text: string): Buffer {
  return Buffer.from(text.replace(/\|/g, '\r\n'), 'latin1');
}

export type Split = 'whole' | 'bytes' | 'random';

/** Cuts `buf` the way a socket might: whole, byte by byte, or at seeded random points. */
export function chunks(buf: Buffer, split: Split, seed = 1): Buffer[] {
  if (split === 'whole' || buf.length === 0) return [buf];
  if (split === 'bytes') return [...buf].map((b) => Buffer.from([b]));
  const out: Buffer[] = [];
  let s = seed;
  for (let i = 0; i < buf.length; ) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const n = 1 + (s % 7);
    out.push(buf.subarray(i, i + n));
    i += n;
  }
  return out;
}

export class TapWire {
  readonly events: TapEvent[] = [];
  readonly commands = new CommandTable();
  readonly tap: Tap;
  upTotal = 0;
  downTotal = 0;

  constructor(
    private readonly split: Split = 'whole',
    options: Partial<TapOptions> = {},
  ) {
    this.tap = new Tap({
      id: 1,
      client: 'test',
      commands: this.commands,
      onEvent: (e) => this.events.push(e),
      openNs: 0,
      wallClockMs: () => 1_700_000_000_000,
      ...options,
    });
  }

  /** Client bytes arrive at `nowNs` (each chunk of the split at the same time). */
  up(text: string | Buffer, nowNs: number): this {
    const buf = typeof text === 'string' ? resp(text) : text;
    for (const c of chunks(buf, this.split, this.upTotal + 1)) this.tap.upChunk(c, nowNs);
    this.upTotal += buf.length;
    return this;
  }

  /** Everything so far was written to Redis at `nowNs`. */
  sent(nowNs: number): this {
    this.tap.upWritten(this.upTotal, nowNs);
    return this;
  }

  down(text: string | Buffer, nowNs: number): this {
    const buf = typeof text === 'string' ? resp(text) : text;
    for (const c of chunks(buf, this.split, this.downTotal + 7)) this.tap.downChunk(c, nowNs);
    this.downTotal += buf.length;
    return this;
  }

  delivered(nowNs: number): this {
    this.tap.downWritten(this.downTotal, nowNs);
    return this;
  }

  exchange(request: string, reply: string, t0Ns: number): this {
    return this.up(request, t0Ns).sent(t0Ns + 1000).down(reply, t0Ns + 2000).delivered(t0Ns + 3000);
  }

  ofType<T extends TapEvent['type']>(type: T): Extract<TapEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<TapEvent, { type: T }> => e.type === type);
  }
}
