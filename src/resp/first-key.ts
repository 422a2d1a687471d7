/**
 * Where a request's first key is, for `--record-keys hashed`. For most keyed commands it is the
 * argument after the name, but not for scripts and functions (`EVAL script numkeys key...`), the
 * numkeys family (`ZUNION numkeys key...`, `BLMPOP timeout numkeys key...`), streams read
 * (`XREAD ... STREAMS key...`), a few containers (`OBJECT ENCODING key`), commands with a word before
 * the key (`BITOP AND destkey key...`), and not at all for commands that take no key (PING, PUBLISH's
 * channel, KEYS's pattern, SCAN's cursor).
 */

import { asciiEqualsUpper } from './command-kind.js';

/** Commands whose arguments hold no key. */
const NO_KEY = new Set(
  (
    'PING ECHO INFO SELECT DBSIZE FLUSHALL FLUSHDB TIME MULTI EXEC DISCARD QUIT RESET WAIT WAITAOF ' +
    'PUBLISH SPUBLISH SUBSCRIBE PSUBSCRIBE SSUBSCRIBE UNSUBSCRIBE PUNSUBSCRIBE SUNSUBSCRIBE KEYS SCAN ' +
    'RANDOMKEY LASTSAVE SAVE BGSAVE BGREWRITEAOF SWAPDB ROLE READONLY READWRITE MONITOR SHUTDOWN SYNC ' +
    'PSYNC REPLCONF REPLICAOF SLAVEOF FAILOVER LOLWUT ASKING AUTH HELLO UNWATCH'
  ).split(' '),
);

/** Where numkeys stands (the keys follow it): 2 after a script, function or timeout, else 1. */
const NUMKEYS_AT = new Map<string, number>([
  ...['EVAL', 'EVALSHA', 'EVAL_RO', 'EVALSHA_RO', 'FCALL', 'FCALL_RO', 'BLMPOP', 'BZMPOP'].map((n) => [n, 2] as const),
  ...['ZUNION', 'ZINTER', 'ZDIFF', 'SINTERCARD', 'ZINTERCARD', 'LMPOP', 'ZMPOP'].map((n) => [n, 1] as const),
]);
/**
 * Commands whose first key comes after a word that is not one (COMMAND INFO's first-key position 2):
 * BITOP's operation, PFDEBUG's subcommand. Taken as the key, BITOP's AND made every BITOP AND one key.
 */
const KEY_AFTER_WORD = new Set(['BITOP', 'PFDEBUG']);
/** Container commands whose subcommand is followed by a key. */
const KEY_AFTER_SUBCOMMAND = new Set([
  'OBJECT ENCODING',
  'OBJECT FREQ',
  'OBJECT IDLETIME',
  'OBJECT REFCOUNT',
  'MEMORY USAGE',
  'XINFO STREAM',
  'XINFO GROUPS',
  'XINFO CONSUMERS',
  'XGROUP CREATE',
  'XGROUP SETID',
  'XGROUP DESTROY',
  'XGROUP CREATECONSUMER',
  'XGROUP DELCONSUMER',
]);

/**
 * Index of the first key among the request's arguments (0 = the name), or -1 when it has none or
 * it lies beyond the `head` arguments the framer kept. `head` may be a getter that allocates:
 * it is read only for the commands that need it.
 */
export function firstKeyIndex(name: string, argc: number, frame: { readonly head: readonly Buffer[] }): number {
  let at: number;
  if (NO_KEY.has(name)) return -1;
  const numkeysAt = NUMKEYS_AT.get(name);
  if (numkeysAt !== undefined) {
    const numkeys = frame.head[numkeysAt];
    if (numkeys === undefined || !(asciiInteger(numkeys) > 0)) return -1;
    at = numkeysAt + 1;
  } else if (name === 'XREAD' || name === 'XREADGROUP') {
    const head = frame.head;
    at = -1;
    for (let i = 1; i < head.length - 1; i++) {
      if (asciiEqualsUpper(head[i]!, 'STREAMS')) {
        at = i + 1;
        break;
      }
    }
    if (at < 0) return -1;
  } else if (name.indexOf(' ') >= 0) {
    if (!KEY_AFTER_SUBCOMMAND.has(name)) return -1;
    at = 2;
  } else if (KEY_AFTER_WORD.has(name)) {
    at = 2;
  } else {
    at = 1;
  }
  return at < argc ? at : -1;
}

/** A non-negative decimal integer, or NaN. */
function asciiInteger(b: Buffer): number {
  if (b.length === 0 || b.length > 15) return NaN;
  let n = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]! - 0x30;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}
