/**
 * The few commands that change how replies are matched, found by name (as commandName() gives it:
 * upper case, container commands with their subcommand) and, for CLIENT REPLY, its argument.
 * Everything else is Normal: one request, one reply.
 */

export const CommandKind = {
  Normal: 0,
  Subscribe: 1,
  PSubscribe: 2,
  SSubscribe: 3,
  Unsubscribe: 4,
  PUnsubscribe: 5,
  SUnsubscribe: 6,
  Monitor: 7,
  Reset: 8,
  Hello: 9,
  Multi: 10,
  Exec: 11,
  Discard: 12,
  ClientReplyOn: 13,
  ClientReplyOff: 14,
  ClientReplySkip: 15,
  /** AUTH: like Normal, but its arguments (credentials) are never hashed or sized. */
  Auth: 16,
  /**
   * Never named: the effective kind of an EXEC whose transaction queued commands that change what
   * later frames are (exec-effects.ts), followed when its reply comes.
   */
  ExecFollowed: 17,
  /**
   * PSYNC and SYNC: a replica's. What follows their reply (+FULLRESYNC, +CONTINUE) is the replication
   * stream (the RDB, the master's writes), no replies (reply-matching.ts, followed()).
   */
  Sync: 18,
} as const;
export type CommandKindCode = (typeof CommandKind)[keyof typeof CommandKind];

const KIND_BY_NAME = new Map<string, CommandKindCode>([
  ['SUBSCRIBE', CommandKind.Subscribe],
  ['PSUBSCRIBE', CommandKind.PSubscribe],
  ['SSUBSCRIBE', CommandKind.SSubscribe],
  ['UNSUBSCRIBE', CommandKind.Unsubscribe],
  ['PUNSUBSCRIBE', CommandKind.PUnsubscribe],
  ['SUNSUBSCRIBE', CommandKind.SUnsubscribe],
  ['MONITOR', CommandKind.Monitor],
  ['RESET', CommandKind.Reset],
  ['HELLO', CommandKind.Hello],
  ['MULTI', CommandKind.Multi],
  ['EXEC', CommandKind.Exec],
  ['DISCARD', CommandKind.Discard],
  ['AUTH', CommandKind.Auth],
  ['PSYNC', CommandKind.Sync],
  ['SYNC', CommandKind.Sync],
]);

/** What kinds read of a request: `head` is only touched for the few names that need it. */
export interface RequestHead {
  /** A getter on real frames (it allocates views): read it only when the name says so. */
  readonly head: readonly Buffer[];
}

/**
 * The kind of a request named `name` (the frame is read only for CLIENT REPLY's argument). A CLIENT
 * REPLY with more or fewer arguments than its one is an error Redis answers like any command.
 */
export function commandKind(name: string, frame: RequestHead & { readonly argc: number }): CommandKindCode {
  const kind = KIND_BY_NAME.get(name);
  if (kind !== undefined) return kind;
  if (name === 'CLIENT REPLY' && frame.argc === 3) {
    const arg = frame.head[2];
    if (arg !== undefined) {
      if (asciiEqualsUpper(arg, 'ON')) return CommandKind.ClientReplyOn;
      if (asciiEqualsUpper(arg, 'OFF')) return CommandKind.ClientReplyOff;
      if (asciiEqualsUpper(arg, 'SKIP')) return CommandKind.ClientReplySkip;
    }
  }
  return CommandKind.Normal;
}

/** True when commandKind() reads the request's arguments for `name` (else its kind is the name's). */
export function kindReadsArguments(name: string): boolean {
  return name === 'CLIENT REPLY';
}

/** (P/S)SUBSCRIBE and (P/S)UNSUBSCRIBE: answered by one confirmation per channel. */
export function isPubSubKind(kind: number): boolean {
  return kind >= CommandKind.Subscribe && kind <= CommandKind.SUnsubscribe;
}

/** Commands whose arguments may hold credentials: never hashed, never sized. */
export function hidesArguments(kind: number): boolean {
  return kind === CommandKind.Auth || kind === CommandKind.Hello;
}

/** Case-insensitive compare of a buffer with an upper-case ASCII word, without allocating. */
export function asciiEqualsUpper(buf: Buffer, upper: string): boolean {
  if (buf.length !== upper.length) return false;
  for (let i = 0; i < buf.length; i++) {
    let c = buf[i] as number;
    if (c >= 0x61 && c <= 0x7a) c -= 0x20;
    if (c !== upper.charCodeAt(i)) return false;
  }
  return true;
}

/** HELLO's protocol version argument: 2 or 3, 0 when absent or anything else. */
export function helloProtocol(frame: RequestHead): number {
  const arg = frame.head[1];
  if (arg === undefined || arg.length !== 1) return 0;
  const c = arg[0];
  return c === 0x32 ? 2 : c === 0x33 ? 3 : 0;
}
