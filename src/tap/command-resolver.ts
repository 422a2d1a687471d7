/**
 * Which stats entry and command kind a request counts under. The entry depends on the name and,
 * for commands that can block, on the arguments and on MULTI (a BLPOP records under "BLPOP", flagged
 * blocking, and one queued inside MULTI under "BLPOP QUEUED": blocking.ts); the kind may read the
 * arguments (CLIENT REPLY ON/OFF/SKIP).
 * A connection mostly repeats one command, and names are interned, so the last name that depends
 * on nothing else is remembered: one pointer compare instead of three hash lookups per request.
 *
 * resolve() fills the fields below instead of returning an object: it runs once per request on
 * the hot path, and the caller reads them at once.
 */
import type { RequestFrame } from '../resp/types.js';
import { isBlocking, mayBlock, statsKey } from './blocking.js';
import { commandKind, kindReadsArguments } from '../resp/command-kind.js';
import type { CommandEntry, CommandTable } from './command-table.js';

export class CommandResolver {
  /** The stats key: the name, or its blocking key. */
  key = '';
  entry: CommandEntry | null = null;
  /** commandKind() of the request, before MULTI or CLIENT REPLY modes apply. */
  kind = 0;
  blocking = false;
  private plainName = '';
  private plainEntry: CommandEntry | null = null;
  private plainKind = 0;

  constructor(private readonly commands: CommandTable) {}

  resolve(name: string, frame: RequestFrame, inMulti: boolean): void {
    if (name === this.plainName) {
      this.key = name;
      this.entry = this.plainEntry;
      this.kind = this.plainKind;
      this.blocking = false;
      return;
    }
    const blocking = !inMulti && isBlocking(name, frame);
    const key = blocking || inMulti ? statsKey(name, blocking, inMulti) : name;
    const entry = this.commands.entry(key, blocking);
    const kind = commandKind(name, frame);
    if (!mayBlock(name) && !kindReadsArguments(name)) {
      this.plainName = name;
      this.plainEntry = entry;
      this.plainKind = kind;
    }
    this.key = key;
    this.entry = entry;
    this.kind = kind;
    this.blocking = blocking;
  }
}
