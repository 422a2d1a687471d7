/**
 * Connection state that decides what a server frame IS, followed in REPLY order (it changes when
 * the server's answer says so, never on the request alone): the protocol (HELLO's reply), MONITOR
 * mode (its +OK), and the pub/sub subscriptions (counted from the confirmations' counts).
 */
import { RespType, type ReplyFrame } from './types.js';
import { CommandKind, type CommandKindCode } from './command-kind.js';

const CONFIRMATION_KIND = new Map<string, CommandKindCode>([
  ['subscribe', CommandKind.Subscribe],
  ['psubscribe', CommandKind.PSubscribe],
  ['ssubscribe', CommandKind.SSubscribe],
  ['unsubscribe', CommandKind.Unsubscribe],
  ['punsubscribe', CommandKind.PUnsubscribe],
  ['sunsubscribe', CommandKind.SUnsubscribe],
]);

const MESSAGE_HEADS = new Set(['message', 'pmessage', 'smessage']);
// Push kinds reported by name; any other RESP3 push is reported as 'push'.
const NAMED_PUSH_KINDS = new Set([...MESSAGE_HEADS, ...CONFIRMATION_KIND.keys(), 'invalidate']);

/** The command a pub/sub confirmation frame answers (by its first element), 0 if it is none. */
export function confirmationKind(head: string | undefined): number {
  return head === undefined ? 0 : (CONFIRMATION_KIND.get(head) ?? 0);
}

/** A RESP2 pub/sub delivery (`message`, `pmessage`, `smessage` arrays). */
export function isMessageHead(head: string | undefined): boolean {
  return head !== undefined && MESSAGE_HEADS.has(head);
}

/** PushEvent kind of a `>` frame or pub/sub array: its pub/sub kind, 'invalidate', or 'push'. */
export function pushKind(head: string | undefined): string {
  return head !== undefined && NAMED_PUSH_KINDS.has(head) ? head : 'push';
}

/**
 * A MONITOR line: `+<unix time>.<us> [db addr] "cmd" ...`. Too long for the framer's `simple`
 * (undefined) or, when short, starting with a digit: no reply status Redis sends does.
 */
export function isMonitorLine(simple: string | undefined): boolean {
  if (simple === undefined) return true;
  const c = simple.charCodeAt(0);
  return c >= 0x30 && c <= 0x39;
}

export class ReplyModes {
  /**
   * Told when a MONITOR or a MULTI got an error reply, or (kind Normal) when an error reply came that
   * no request waited for (its owner's RequestModes.refused).
   */
  onRefused: ((kind: number) => void) | undefined = undefined;
  protocol: 2 | 3 = 2;
  monitor = false;
  channels = 0;
  patterns = 0;
  shardChannels = 0;
  // Redis counts channels + patterns together in (p)(un)subscribe confirmations and shard
  // channels apart in s(un)subscribe ones; the last count seen in each lets deltas be split.
  private regularCount = 0;

  get subscribed(): boolean {
    return this.regularCount > 0 || this.shardChannels > 0;
  }

  get mode(): 'normal' | 'subscribed' | 'monitor' {
    return this.monitor ? 'monitor' : this.subscribed ? 'subscribed' : 'normal';
  }

  /** A confirmation of `kind` arrived carrying `count` subscriptions left (undefined if absent). */
  confirmed(kind: number, count: number | undefined): void {
    if (count === undefined || count < 0) return;
    if (kind === CommandKind.SSubscribe || kind === CommandKind.SUnsubscribe) {
      this.shardChannels = count;
      return;
    }
    const delta = count - this.regularCount;
    this.regularCount = count;
    if (kind === CommandKind.Subscribe || kind === CommandKind.Unsubscribe) this.channels = Math.max(0, this.channels + delta);
    else this.patterns = Math.max(0, this.patterns + delta);
    if (count === 0) this.channels = this.patterns = 0;
  }

  /** The count a confirmation of `kind` carries now: shard channels, or channels and patterns. */
  countFor(kind: number): number {
    return kind === CommandKind.SSubscribe || kind === CommandKind.SUnsubscribe ? this.shardChannels : this.regularCount;
  }

  /** Subscriptions an UNSUBSCRIBE family command of `kind` drops when it names none. */
  heldBy(kind: number): number {
    return kind === CommandKind.Unsubscribe ? this.channels : kind === CommandKind.PUnsubscribe ? this.patterns : this.shardChannels;
  }

  /** Confirmations an argument-less (P/S)UNSUBSCRIBE gets: one per subscription, or one if none. */
  unsubscribeAllReplies(kind: number): number {
    return Math.max(1, this.heldBy(kind));
  }

  /**
   * A command of `kind` got a reply of `type`: HELLO 2/3 sets the protocol (`helloProtocol`, 0 if
   * its argument was not 2 or 3), MONITOR's +OK starts monitor mode, RESET resets. An error
   * changes nothing.
   */
  answered(kind: number, helloProtocol: number, type: number): void {
    if (type === RespType.Error || type === RespType.BlobError) {
      if (kind === CommandKind.Monitor || kind === CommandKind.Multi) this.onRefused?.(kind);
      return;
    }
    if (kind === CommandKind.Monitor && type !== RespType.SimpleString) return;
    this.silent(kind, helloProtocol);
  }

  /**
   * What a command of `kind` changes once it took effect: HELLO 2/3 sets the protocol, MONITOR
   * starts monitor mode, RESET resets. Called by answered(), and for a command that got no reply
   * (CLIENT REPLY OFF or SKIP), after the replies before it: a HELLO is then taken to have succeeded.
   */
  silent(kind: number, helloProtocol: number): void {
    if (kind === CommandKind.Hello && helloProtocol !== 0) this.protocol = helloProtocol === 3 ? 3 : 2;
    else if (kind === CommandKind.Monitor) this.monitor = true;
    else if (kind === CommandKind.Reset) this.reset();
  }

  /** Whether silent() does anything for a command of `kind`. */
  static changedBySilent(kind: number): boolean {
    return kind === CommandKind.Hello || kind === CommandKind.Monitor || kind === CommandKind.Reset;
  }

  /** Takes over another connection view's state (framing starting on a live connection). */
  copyFrom(o: ReplyModes): void {
    this.protocol = o.protocol;
    this.monitor = o.monitor;
    this.channels = o.channels;
    this.patterns = o.patterns;
    this.shardChannels = o.shardChannels;
    this.regularCount = o.regularCount;
  }

  /** RESET's effect: RESP2, no subscriptions, no MONITOR. */
  reset(): void {
    this.protocol = 2;
    this.monitor = false;
    this.channels = this.patterns = this.shardChannels = this.regularCount = 0;
  }
}

/** What a server frame is before matching; the correlator settles confirmations by its target. */
export const FrameClass = { Reply: 0, Push: 1, MonitorLine: 2, Confirmation: 3 } as const;

/**
 * RESP3 `>` frames are pushes, or pub/sub confirmations. In RESP2 an array is a confirmation by
 * its first element, and a message only in subscribed mode (elsewhere it may be a plain reply
 * that starts with "message"). In MONITOR mode, monitor lines are told apart from the other
 * simple strings; the rest is told apart as outside it: Redis lets a monitor subscribe (and a
 * subscribed RESP3 client monitor), so messages, confirmations and invalidations still come.
 */
export function classifyFrame(f: ReplyFrame, modes: ReplyModes): number {
  const type = f.type;
  if (type === RespType.SimpleString) {
    return modes.monitor && isMonitorLine(f.simple) ? FrameClass.MonitorLine : FrameClass.Reply;
  }
  if (type === RespType.Push || (type === RespType.Array && modes.protocol === 2)) {
    if (confirmationKind(f.head) !== 0) return FrameClass.Confirmation;
    if (type === RespType.Push || (modes.subscribed && isMessageHead(f.head))) return FrameClass.Push;
  }
  return FrameClass.Reply;
}
