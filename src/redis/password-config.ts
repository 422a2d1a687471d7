import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Keeps a `--requirepass` out of redis-server's argv (where `ps` shows it): the password goes into a
 * 0600 config file in `dir`, which redis-server reads when it is its first argument (the rest of
 * argv overrides it). Returns the other arguments, the password, and the file to put first.
 */
export function passwordOffArgv(
  extra: readonly string[],
  dir: string,
): { args: string[]; password: string | undefined; configFile: string | undefined } {
  const { args, password } = takeRequirepass(extra);
  if (password === undefined) return { args, password, configFile: undefined };
  const configFile = join(dir, 'redis.conf');
  writeFileSync(configFile, `requirepass ${quoteConfig(password)}\n`, { mode: 0o600 });
  return { args, password, configFile };
}

/** Splits `--requirepass X` (the last one wins, as in redis-server) out of extra arguments. */
function takeRequirepass(extra: readonly string[]): { args: string[]; password: string | undefined } {
  const args: string[] = [];
  let password: string | undefined;
  for (let i = 0; i < extra.length; i++) {
    if (extra[i] === '--requirepass' && i + 1 < extra.length) {
      password = extra[++i];
      continue;
    }
    args.push(extra[i]!);
  }
  return { args, password };
}

/** A config-file string: double-quoted, with backslash escapes for quotes, backslashes and bytes outside printable ASCII. */
function quoteConfig(value: string): string {
  let out = '"';
  for (const b of Buffer.from(value, 'utf8')) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}
