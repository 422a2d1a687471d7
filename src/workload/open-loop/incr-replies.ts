/**
 * The replies an INCR can get, read from a byte stream, push-driven and without I/O: `:<integer>`
 * (ok) or `-<message>` (a server error, kept as data). Anything else cannot be the answer to an
 * INCR on a RESP2 connection, so it is a protocol failure that ends the connection: a reader that
 * skipped it would pair later replies with the wrong commands. Works across any chunk split, and
 * makes no garbage per reply (an error's text is the only string it builds).
 */
import { Byte } from '../../resp/bytes.js';

/** An error's text is kept up to this many bytes: enough to say what it was. */
const MAX_ERROR_BYTES = 200;

export interface IncrReplySink {
  /** One reply: an integer (`error` undefined) or a server error's text. */
  reply(error: string | undefined): void;
  /** Bytes that are no INCR reply: the stream cannot be read further. */
  unreadable(what: string): void;
}

/** Where the reader is inside a line. */
const enum State {
  LineStart,
  Integer,
  IntegerDigits,
  Error,
  LineFeed,
  Broken,
}

export class IncrReplyReader {
  private state = State.LineStart;
  private isError = false;
  private errorBytes: number[] = [];

  constructor(private readonly sink: IncrReplySink) {}

  /** Reads `length` bytes of `chunk` (all by default); calls the sink once per complete reply in them. */
  push(chunk: Uint8Array, length = chunk.length): void {
    for (let i = 0; i < length; i++) {
      const b = chunk[i] as number;
      switch (this.state) {
        case State.LineStart:
          if (b === Byte.Colon) {
            this.isError = false;
            this.state = State.Integer;
          } else if (b === Byte.Error) {
            this.isError = true;
            this.errorBytes.length = 0;
            this.state = State.Error;
          } else return this.fail(`a reply of type ${JSON.stringify(String.fromCharCode(b))}, not an integer`);
          break;
        case State.Integer:
          if (b === Byte.Minus || (b >= Byte.D0 && b <= Byte.D9)) this.state = State.IntegerDigits;
          else return this.fail('an integer reply without digits');
          break;
        case State.IntegerDigits:
          if (b === Byte.CR) this.state = State.LineFeed;
          else if (b < Byte.D0 || b > Byte.D9) return this.fail('an integer reply with a non-digit');
          break;
        case State.Error:
          if (b === Byte.CR) this.state = State.LineFeed;
          else if (this.errorBytes.length < MAX_ERROR_BYTES) this.errorBytes.push(b);
          break;
        case State.LineFeed:
          if (b !== Byte.LF) return this.fail('a reply line not ended by CRLF');
          this.state = State.LineStart;
          this.sink.reply(this.isError ? Buffer.from(this.errorBytes).toString('latin1') : undefined);
          break;
        case State.Broken:
          return;
      }
    }
  }

  private fail(what: string): void {
    this.state = State.Broken;
    this.sink.unreadable(what);
  }
}
