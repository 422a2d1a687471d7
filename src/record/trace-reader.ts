/**
 * Reads a trace written by the recorder (format: trace-format.ts). Validates the header and version and
 * turns each line back into a TapEvent whose times are microseconds since the trace started. Errors name
 * the file and line. A last line cut short (the proxy was killed mid-write) is dropped with a warning.
 */
import { createReadStream } from 'node:fs';
import type { TapEvent } from '../stats/types.js';
import { decodeEvent, decodeLink, type DecodedLine } from './trace-decode.js';
import {
  TRACE_FORMAT,
  TRACE_VERSION,
  KEY_MODES,
  type KeyMode,
  type LinkChange,
  type NodeLinkChange,
  type TraceEnd,
  type TraceHeader,
  type TraceLink,
  type TraceTruncation,
} from './trace-format.js';

/** A file that is not a readable redis-rtt trace. */
export class TraceFormatError extends Error {
  override readonly name = 'TraceFormatError';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(line > 0 ? `${file}:${line}: ${detail}` : `${file}: ${detail}`);
  }
}

export interface Trace {
  header: TraceHeader;
  /** Every event in file order, times relative to the trace start. */
  events: TapEvent[];
  links: LinkChange[];
  /** Cluster traces: each node's link over time (absent or empty in single-node traces). */
  nodeLinks?: NodeLinkChange[];
  truncation?: TraceTruncation;
  /** Absent when the recording was cut off (no clean close). */
  end?: TraceEnd;
  warnings: string[];
}

export interface ReadOptions {
  /**
   * Keep each command's argument sizes. The analysis does not use them: left off, a big trace takes
   * less memory. @default true
   */
  argSizes?: boolean;
}

/** Reads and validates a whole trace file. */
export async function readTrace(path: string, options: ReadOptions = {}): Promise<Trace> {
  const parser = new TraceParser(path, options.argSizes ?? true);
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  let rest = '';
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      const text = rest + chunk;
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        parser.line(text.slice(start, nl), true);
        start = nl + 1;
      }
      rest = text.slice(start);
    }
  } catch (err) {
    if (err instanceof TraceFormatError) throw err;
    throw new TraceFormatError(path, 0, `cannot read: ${(err as Error).message}`);
  }
  if (rest !== '') parser.line(rest, false);
  return parser.finish();
}

/** Parses a trace held in memory (tests, small files). */
export function parseTrace(text: string, file = 'trace'): Trace {
  const parser = new TraceParser(file);
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  for (const l of lines) parser.line(l, true);
  if (last !== '') parser.line(last, false);
  return parser.finish();
}

class TraceParser {
  private lineNo = 0;
  private header: TraceHeader | undefined;
  private readonly events: TapEvent[] = [];
  private readonly links: LinkChange[] = [];
  private readonly nodeLinks: NodeLinkChange[] = [];
  private readonly warnings: string[] = [];
  private truncation: TraceTruncation | undefined;
  private end: TraceEnd | undefined;

  constructor(
    private readonly file: string,
    private readonly keepArgSizes = true,
  ) {}

  line(text: string, terminated: boolean): void {
    this.lineNo++;
    if (text.trim() === '') return;
    let obj: unknown;
    try {
      obj = JSON.parse(text);
    } catch {
      if (!terminated && this.header) {
        this.warnings.push(`line ${this.lineNo}: incomplete last line ignored (the recording was cut off)`);
        return;
      }
      // A results file (bench, calibrate, analyze --json) opens with a lone "{": say what it likely is.
      const pretty = text.trim() === '{' ? ': a JSON document, as bench, calibrate and analyze --json write, not a trace' : '';
      throw this.error(this.lineNo === 1 ? `not a redis-rtt trace (line 1 is not JSON${pretty})` : 'not valid JSON');
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw this.error('expected a JSON object');
    if (!this.header) {
      this.header = this.readHeader(obj as Record<string, unknown>);
      return;
    }
    // Traces put one after the other (cat a.trace b.trace): the second's times restart and its connection
    // ids repeat the first's, which would read as one nonsense session.
    if ((obj as Record<string, unknown>).type === 'header') throw this.error('a second header: two traces in one file (each --record writes its own; analyze them one by one)');
    if (this.end) throw this.error('a line after the end line (the recorder writes nothing after it)');
    let decoded: DecodedLine;
    try {
      decoded = decodeEvent(obj as Record<string, unknown>, this.keepArgSizes);
    } catch (err) {
      throw this.error((err as Error).message);
    }
    if (decoded.kind === 'event') this.events.push(decoded.event);
    else if (decoded.kind === 'link') this.links.push(decoded.change);
    else if (decoded.kind === 'nodelink') this.nodeLinks.push(decoded.change);
    else if (decoded.kind === 'truncated') this.truncation = decoded.truncation;
    else if (decoded.kind === 'end') this.end = decoded.end;
  }

  finish(): Trace {
    if (!this.header) throw new TraceFormatError(this.file, 0, 'empty file: not a redis-rtt trace');
    if (!this.end) this.warnings.push('no end line: the trace is still being written, or its proxy stopped without closing it (killed); the last requests may be missing');
    const trace: Trace = { header: this.header, events: this.events, links: this.links, nodeLinks: this.nodeLinks, warnings: this.warnings };
    if (this.truncation) trace.truncation = this.truncation;
    if (this.end) trace.end = this.end;
    return trace;
  }

  private readHeader(o: Record<string, unknown>): TraceHeader {
    if (o.type !== 'header' || o.format !== TRACE_FORMAT) {
      throw this.error(`not a redis-rtt trace (line 1 must be {"type":"header","format":"${TRACE_FORMAT}",...})`);
    }
    if (typeof o.version !== 'number' || !Number.isInteger(o.version)) throw this.error('"version" must be a whole number');
    if (o.version !== TRACE_VERSION) {
      throw this.error(`trace version ${o.version} is not supported (this redis-rtt reads version ${TRACE_VERSION})`);
    }
    if (!KEY_MODES.includes(o.keys as KeyMode)) throw this.error('"keys" must be "none" or "hashed"');
    let link: TraceLink;
    try {
      link = decodeLink(o.link);
    } catch (err) {
      throw this.error((err as Error).message);
    }
    return {
      type: 'header',
      format: TRACE_FORMAT,
      version: o.version,
      startedAt: typeof o.startedAt === 'string' ? o.startedAt : '',
      clock: typeof o.clock === 'string' ? o.clock : '',
      keys: o.keys as KeyMode,
      link,
      ...(Array.isArray(o.linkMoves) && o.linkMoves.every((m) => typeof m === 'string') ? { linkMoves: o.linkMoves as string[] } : {}),
      ...(typeof o.tool === 'string' ? { tool: o.tool } : {}),
    };
  }

  private error(detail: string): TraceFormatError {
    return new TraceFormatError(this.file, this.lineNo, detail);
  }
}
