/** The byte streams the framer benchmark feeds: what a SET-heavy client sends and gets back. */

/** `SET key:NNNNNNNN <value>` requests, back to back. */
export function setRequestStream(frames: number, valueBytes: number): Buffer {
  const value = 'v'.repeat(valueBytes);
  const parts: string[] = [];
  for (let i = 0; i < frames; i++) {
    const key = `key:${String(i % 100_000_000).padStart(8, '0')}`;
    parts.push(`*3\r\n$3\r\nSET\r\n$${key.length}\r\n${key}\r\n$${valueBytes}\r\n${value}\r\n`);
  }
  return Buffer.from(parts.join(''), 'latin1');
}

/** Replies of a SET/GET mix: `+OK` and bulk strings, alternating. */
export function replyStream(frames: number, valueBytes: number): Buffer {
  const ok = '+OK\r\n';
  const bulk = `$${valueBytes}\r\n${'v'.repeat(valueBytes)}\r\n`;
  const parts: string[] = [];
  for (let i = 0; i < frames; i++) parts.push(i % 2 === 0 ? ok : bulk);
  return Buffer.from(parts.join(''), 'latin1');
}

/** Cuts a stream into chunks the way socket reads would deliver it (views, no copies). */
export function chunk(stream: Buffer, chunkBytes: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < stream.length; at += chunkBytes) chunks.push(stream.subarray(at, at + chunkBytes));
  return chunks;
}
