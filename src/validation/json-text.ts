import { scanJson } from './json-scan.js';

/**
 * JSON a user wrote in a file (`--config`, `--toxics`, `--link-schedule`): a UTF-8 byte order mark
 * at the start is skipped, as Windows editors write one; a syntax error says its line and column
 * on every Node (Node 20's JSON.parse gives the character position only, and no Node's gives any
 * for an unexpected token: `'x'`, `True`, `[1,]`); a key given twice in one object is an error
 * there too (JSON.parse keeps the last, and the first one's setting would be dropped unsaid), unless
 * `duplicateKeys` is 'last'.
 */
export function parseJsonText(text: string, duplicateKeys: 'refuse' | 'last' = 'refuse'): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    if (isUtf16(body)) throw new SyntaxError('the file is UTF-16 (as PowerShell 5\'s > writes one), not UTF-8: save it as UTF-8');
    throw new SyntaxError(withLineColumn(placed((err as Error).message, body), body));
  }
  // 'last': toxiproxy's populate JSON, which its Go decoder reads so (docs/toxiproxy.md).
  const found = duplicateKeys === 'refuse' ? scanJson(body) : undefined;
  if (found?.kind === 'duplicate-key') {
    throw new SyntaxError(withLineColumn(`Duplicate key ${JSON.stringify(found.key)} in JSON at position ${found.at}`, body));
  }
  return value;
}

/**
 * UTF-16 read as UTF-8: its byte order mark is two bytes no UTF-8 starts with (two U+FFFD), and each ASCII
 * character has a 0 byte beside it. JSON.parse said `Unexpected token '\ufffd' ... at position 0`.
 */
function isUtf16(text: string): boolean {
  return text.startsWith('\ufffd\ufffd') && text.includes('\u0000');
}

/**
 * `Unexpected token 'T', "...snippet..." is not valid JSON` becomes `Unexpected token 'T' in JSON at
 * position 6`: the place instead of the snippet, which holds the file's line breaks and no place.
 */
function placed(message: string, text: string): string {
  const m = /^(Unexpected token '.+?'), .* is not valid JSON$/s.exec(message);
  const found = m === null ? undefined : scanJson(text);
  if (m === null || found?.kind !== 'not-json') return message;
  return `${m[1]} in JSON at position ${found.at}`;
}

/** `... at position 13` gains ` (line 3 column 3)`, unless the message already says it. */
function withLineColumn(message: string, text: string): string {
  const m = / at position (\d+)$/.exec(message);
  if (m === null) return message;
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${message} (line ${line} column ${column})`;
}
