import { ByteTable } from './byte-table.js';
import { HotLimit } from './bytes.js';
import { CONTAINER_SUBCOMMANDS, KNOWN_COMMANDS, KNOWN_MODULE_COMMANDS } from './known-commands.js';

/**
 * Command names for per-command counters. A name is the upper-case command, plus the subcommand
 * for container commands (`CLIENT TRACKING`, `CONFIG GET`). It never carries a value: at most the
 * first two arguments are read, and only as names.
 *
 * Cardinality is bounded and no data word becomes a name: names come from the tables of known
 * commands and module commands (command-table.ts). Any other word reads UNKNOWN_COMMAND_NAME. A
 * dotted word (a module command we do not list) is a candidate: the correlator calls
 * learnProvenName() once Redis answered it without an error (an unknown command is an error), and
 * later requests get the name, until MAX_LEARNED_NAMES distinct ones exist in the process. So
 * `mypass.word` typed at a prompt never becomes a name. An unknown subcommand of a container reads
 * `CLIENT ?`. A stats table keyed on these names stays small whatever a client sends.
 *
 * Lookups hash the raw bytes in place and return interned strings: no allocation per frame.
 */

export const UNKNOWN_COMMAND_NAME = '?';

/** Distinct names learned at run time, process-wide, before new ones read UNKNOWN_COMMAND_NAME. */
export const MAX_LEARNED_NAMES = 256;

interface CommandEntry {
  readonly name: string;
  /** Subcommand table of a container command (sub name -> full name), null otherwise. */
  readonly subs: ByteTable<string> | null;
  readonly unknownSub: string;
}

const commands = new ByteTable<CommandEntry>(true, 1024);
let learnedCount = 0;

for (const name of `${KNOWN_COMMANDS} ${KNOWN_MODULE_COMMANDS}`.split(/\s+/)) {
  if (name !== '') commands.setString(name, { name, subs: null, unknownSub: name });
}
for (const [name, list] of Object.entries(CONTAINER_SUBCOMMANDS)) {
  const subs = new ByteTable<string>(true, 64);
  for (const sub of list.split(/\s+/)) if (sub !== '') subs.setString(sub, `${name} ${sub}`);
  commands.setString(name, { name, subs, unknownSub: `${name} ${UNKNOWN_COMMAND_NAME}` });
}

const CONTAINERS = new Set(Object.keys(CONTAINER_SUBCOMMANDS));

/** True when `name` can stand for more than its first argument: a container command, or unknown. */
export function nameReadsPastFirstArg(name: string): boolean {
  return name === UNKNOWN_COMMAND_NAME || CONTAINERS.has(name) || name.indexOf(' ') >= 0;
}

/** Which bytes may appear in a name we have never seen: letters, digits and `_ . : | -`. */
const NAME_BYTE = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  const isAlnum = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
  NAME_BYTE[b] = isAlnum || b === 0x5f || b === 0x2e || b === 0x3a || b === 0x7c || b === 0x2d ? 1 : 0;
}

/**
 * The name from raw bytes. `len0` is the full length of argument 0 (the buffer holds at least
 * min(len0, 32) bytes from `off0`); `len1` likewise for argument 1, or -1 when there is none.
 */
export function commandNameAt(
  buf0: Uint8Array,
  off0: number,
  len0: number,
  buf1: Uint8Array,
  off1: number,
  len1: number,
): string {
  if (len0 <= 0 || len0 > HotLimit.NameMaxBytes) return UNKNOWN_COMMAND_NAME;
  const entry = commands.get(buf0, off0, len0);
  if (entry === undefined) return UNKNOWN_COMMAND_NAME;
  if (entry.subs === null || len1 < 0) return entry.name;
  if (len1 === 0 || len1 > HotLimit.NameMaxBytes) return entry.unknownSub;
  return entry.subs.get(buf1, off1, len1) ?? entry.unknownSub;
}

const NO_BYTES = Buffer.alloc(0);

/** The contract's form: `head` as in a RequestFrame (arguments may be cut to `headBytes`). */
export function commandName(head: readonly Buffer[], argc: number): string {
  const a0 = head[0];
  if (argc < 1 || a0 === undefined) return UNKNOWN_COMMAND_NAME;
  const a1 = argc >= 2 ? head[1] : undefined;
  // argc says there is a second argument the head did not keep: a container reads `CLIENT ?`.
  const len1 = a1 !== undefined ? a1.length : argc >= 2 ? 0 : -1;
  return commandNameAt(a0, 0, a0.length, a1 ?? NO_BYTES, 0, len1);
}

/** How many names were learned at run time (for tests and diagnostics). */
export function learnedCommandNames(): number {
  return learnedCount;
}

/**
 * The upper-cased word a request named, if it could be a module command we do not list (letters,
 * digits and `_ . : | -`, a dot inside, at most 32 bytes); undefined otherwise. Only for requests
 * whose name read UNKNOWN_COMMAND_NAME: the caller keeps it until the reply says whether it is one.
 */
export function moduleCandidate(head0: Buffer | undefined): string | undefined {
  if (head0 === undefined || head0.length === 0 || head0.length > HotLimit.NameMaxBytes) return undefined;
  let dot = false;
  for (let i = 0; i < head0.length; i++) {
    const c = head0[i]!;
    if (NAME_BYTE[c] === 0) return undefined;
    if (c === 0x2e && i > 0 && i < head0.length - 1) dot = true;
  }
  return dot ? head0.toString('latin1').toUpperCase() : undefined;
}

/**
 * Redis answered `name` (from moduleCandidate) without an error: the command exists, so later
 * requests are counted under it. No-op past MAX_LEARNED_NAMES or when already known.
 */
export function learnProvenName(name: string): void {
  if (learnedCount >= MAX_LEARNED_NAMES || commands.getString(name) !== undefined) return;
  commands.setString(name, { name, subs: null, unknownSub: name });
  learnedCount++;
}
