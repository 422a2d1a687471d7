/**
 * Escaping for text and attribute values in SVG and HTML. Every label that came from data (link
 * names, notes, errors) goes through here: a link named <script> must stay text.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** A fragment of an id: letters, digits and dashes only. */
export function idPart(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'x';
}

/** Short stable hash (djb2) so ids built from different names cannot collide after idPart. */
export function shortHash(text: string): string {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = ((h * 33) ^ text.charCodeAt(i)) >>> 0;
  return h.toString(36);
}

/** Rounds a pixel coordinate so SVG output stays short and stable across platforms. */
export function px(v: number): string {
  const r = Math.round(v * 10) / 10;
  return Object.is(r, -0) ? '0' : String(r);
}
