import { accessSync, constants, mkdirSync, statSync, type Stats } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../errors.js';

/** The one `--json` grammar: `--json FILE` writes the JSON there, `--json -` prints it on stdout. */
export const JSON_FLAG = '--json <file>';
export const JSON_HELP = 'write the JSON result to FILE (- for stdout)';

export function jsonToStdout(target: string | undefined): boolean {
  return target === '-';
}

/** Writes `text` where `--json` says; returns the file written, or undefined for stdout. */
export async function writeJsonTarget(target: string, text: string): Promise<string | undefined> {
  if (jsonToStdout(target)) {
    process.stdout.write(text);
    return undefined;
  }
  await writeOutputFile(target, text);
  return target;
}

/**
 * Writes an output that checkOutputs checked with `makeFolders: false`, making its folder first: made
 * when there is something to write, so a run that fails first (a Redis that does not answer) leaves none.
 */
export async function writeOutputFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/**
 * Checks, before a run, that each output can be written where its flag says (a missing folder is
 * made, as --hgrm-dir's is): a bad path is an exit 2 naming the flag, not a stack trace after the
 * run. `dirs` are folders to write into (--hgrm-dir), the rest files; `-` is stdout. `reads` are the
 * files the command reads: an output on one of them would replace it (analyze t.trace --html t.trace).
 * Every output is checked before any folder is made, so a refusal leaves nothing behind; with
 * `makeFolders: false` none is made (analyze checks before it reads the trace, and makes them once it has).
 */
export function checkOutputs(
  files: Record<string, string | undefined>,
  dirs: Record<string, string | undefined> = {},
  reads: readonly string[] = [],
  { makeFolders = true }: { makeFolders?: boolean } = {},
): void {
  for (const [flag, path] of [...Object.entries(files), ...Object.entries(dirs)]) {
    if (path?.trim() === '') throw new ConfigError(flag, path, 'a file path');
  }
  refuseStdoutDash({ ...files, ...dirs });
  refuseOutputsOnInputs(files, reads);
  // Two outputs on one file: the second written would replace the first (--json r.json --html r.json).
  const given = Object.entries(files).filter((e): e is [string, string] => e[1] !== undefined && !jsonToStdout(e[1]));
  for (const [i, [flag, path]] of given.entries()) {
    const earlier = given.slice(0, i).find(([, other]) => sameFile(other, path));
    if (earlier !== undefined) throw new ConfigError(flag, path, `a path other than ${earlier[0]}'s`);
  }
  const folders: [flag: string, path: string, folder: string][] = [
    ...given.map(([flag, path]): [string, string, string] => [flag, path, dirname(path)]),
    ...Object.entries(dirs).filter((e): e is [string, string] => e[1] !== undefined).map(([flag, path]): [string, string, string] => [flag, path, path]),
  ];
  const refuse = (flag: string, path: string, err: unknown): ConfigError =>
    new ConfigError(flag, path, `a path whose folder can be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  for (const [flag, path, folder] of folders) {
    try {
      checkFolderWritable(folder);
      if (folder !== path && statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw Object.assign(new Error(), { code: 'EISDIR' });
    } catch (err) {
      throw refuse(flag, path, err);
    }
  }
  if (!makeFolders) return;
  for (const [flag, path, folder] of folders) {
    try {
      mkdirSync(folder, { recursive: true });
    } catch (err) {
      throw refuse(flag, path, err);
    }
  }
}

/**
 * Throws as mkdir or a write there would (ENOTDIR, EACCES) without making anything: the folder, or
 * its nearest ancestor that exists when it does not yet, is a folder this process can write.
 */
function checkFolderWritable(folder: string): void {
  let at = resolve(folder);
  for (let up = dirname(at); statSync(at, { throwIfNoEntry: false }) === undefined && up !== at; up = dirname(at)) at = up;
  if (!statSync(at).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
  accessSync(at, constants.W_OK);
}

/** `-` is stdout for --json only: any other output given `-` wrote a file named "-" in the working folder. */
export function refuseStdoutDash(outputs: Record<string, string | undefined>): void {
  for (const [flag, path] of Object.entries(outputs)) {
    if (flag !== '--json' && path === '-') throw new ConfigError(flag, path, 'a path (- means stdout for --json only)');
  }
}

/** An output (flag to path) on a file the command reads would replace what it read: exit 2 naming the flag. */
export function refuseOutputsOnInputs(files: Record<string, string | undefined>, reads: readonly string[]): void {
  for (const [flag, path] of Object.entries(files)) {
    if (path === undefined || jsonToStdout(path)) continue;
    const input = reads.find((read) => sameFile(read, path));
    if (input !== undefined) throw new ConfigError(flag, path, `a path other than ${input}, which is read, not written`);
  }
}

function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const statOf = (path: string): Stats | undefined => {
    try {
      return statSync(path);
    } catch {
      return undefined; // not there (or not reachable): not the file read
    }
  };
  const statA = statOf(a);
  const statB = statOf(b);
  return statA !== undefined && statB !== undefined && statA.dev === statB.dev && statA.ino === statB.ino;
}
