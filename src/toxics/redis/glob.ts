/**
 * Redis's glob (stringmatchlen in util.c, as KEYS and SCAN MATCH use it): `*`, `?`, `[abc]`,
 * `[^a-z]`, `\x`. Matched byte for byte: the pattern's UTF-8 bytes against the key's bytes.
 */
export function compileGlob(pattern: string): (key: Buffer) => boolean {
  const p = Buffer.from(pattern, 'utf8').toString('latin1');
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '\\' && i + 1 < p.length) re += escape(p[++i]!);
    else if (c === '[') {
      let j = i + 1;
      let cls = '';
      if (p[j] === '^') {
        cls += '^';
        j++;
      }
      for (; j < p.length && p[j] !== ']'; j++) {
        if (p[j] === '\\' && j + 1 < p.length) cls += escape(p[++j]!);
        else if (p[j] === '-' && cls !== '' && cls !== '^' && j + 1 < p.length && p[j + 1] !== ']') cls += '-';
        else cls += escape(p[j]!);
      }
      // Redis treats an unclosed [ as running to the end of the pattern.
      re += cls === '' || cls === '^' ? (cls === '^' ? '[\\s\\S]' : '(?!)') : `[${cls}]`;
      i = j;
    } else re += escape(c);
  }
  const rx = new RegExp(`^${re}$`);
  return (key) => rx.test(key.toString('latin1'));
}

function escape(c: string): string {
  return /[\\^$.*+?()[\]{}|\-/]/.test(c) ? `\\${c}` : c;
}
