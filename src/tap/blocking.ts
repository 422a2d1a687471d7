/**
 * Blocking commands: their latency is how long the server waited for data (or replicas), not
 * the network, so it goes to histograms of its own.
 */
import { asciiEqualsUpper, type RequestHead } from '../resp/command-kind.js';

const ALWAYS_BLOCKING = new Set([
  'BLPOP',
  'BRPOP',
  'BRPOPLPUSH',
  'BLMOVE',
  'BLMPOP',
  'BZPOPMIN',
  'BZPOPMAX',
  'BZMPOP',
  'WAIT',
  'WAITAOF',
]);

/**
 * True when the request can block. XREAD/XREADGROUP block only with a BLOCK option: it is looked
 * for among the head arguments before STREAMS (so a stream named "block" is not taken for it).
 * The tap asks the framer for enough head arguments (HEAD_ARGS) to reach BLOCK in every order
 * Redis accepts before STREAMS: `XREAD [COUNT n] [BLOCK ms]` and
 * `XREADGROUP GROUP g c [COUNT n] [BLOCK ms] [NOACK]` (BLOCK at index 8 at the latest).
 */
export function isBlocking(name: string, frame: RequestHead): boolean {
  if (ALWAYS_BLOCKING.has(name)) return true;
  if (name !== 'XREAD' && name !== 'XREADGROUP') return false;
  const head = frame.head;
  for (let i = 1; i < head.length; i++) {
    const arg = head[i] as Buffer;
    if (asciiEqualsUpper(arg, 'BLOCK')) return true;
    if (asciiEqualsUpper(arg, 'STREAMS')) return false;
  }
  return false;
}

/** False when no request named `name` can block, whatever its arguments. */
export function mayBlock(name: string): boolean {
  return ALWAYS_BLOCKING.has(name) || name === 'XREAD' || name === 'XREADGROUP';
}

/**
 * Head arguments the request framer exposes: enough for isBlocking() to see XREADGROUP's BLOCK and
 * for the first key after its STREAMS (index 9 at the latest).
 */
export const HEAD_ARGS = 11;

/**
 * An always-blocking command queued inside MULTI does not block (EXEC runs it without waiting) and
 * its reply is +QUEUED: it counts under "BLPOP QUEUED", never under "BLPOP", whose entry holds the
 * real waits alone and stays flagged `blocking` whichever of the two came first. Interned keys.
 */
const QUEUED_KEYS = new Map([...ALWAYS_BLOCKING].map((name) => [name, `${name} QUEUED`]));
const RUN_KEYS = new Map([...QUEUED_KEYS].map(([name, queued]) => [queued, name]));

/**
 * The CommandStats key of a request. XREAD and XREADGROUP are used both ways, so their blocking
 * form is counted as "XREAD BLOCK" / "XREADGROUP BLOCK" and the plain entries stay clean; the
 * always-blocking commands keep their own name (the entry is marked `blocking`), and a queued one
 * (`queued`: inside MULTI) gets the key above. A queued XREAD BLOCK counts as a plain XREAD.
 */
export function statsKey(name: string, blocking: boolean, queued = false): string {
  if (blocking && (name === 'XREAD' || name === 'XREADGROUP')) return name === 'XREAD' ? 'XREAD BLOCK' : 'XREADGROUP BLOCK';
  if (queued) return QUEUED_KEYS.get(name) ?? name;
  return name;
}

/** The key of a request resolved as queued under `queuedKey` that runs at once after all, and blocks. */
export function runKey(queuedKey: string): string {
  return statsKey(RUN_KEYS.get(queuedKey) ?? queuedKey, true);
}
