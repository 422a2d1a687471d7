import { writeFile } from 'node:fs/promises';

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
  await writeFile(target, text);
  return target;
}
