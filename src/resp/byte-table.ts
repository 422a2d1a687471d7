/**
 * A small open-addressing hash table keyed on raw bytes, so a name can be looked up straight from
 * a chunk (buffer, offset, length) without first making a string. Used to turn command names,
 * status replies and error codes into interned strings: the hot path allocates nothing.
 */

/** Maps a-z to A-Z and every other byte to itself. */
const UPPER = new Uint8Array(256);
for (let b = 0; b < 256; b++) UPPER[b] = b >= 0x61 && b <= 0x7a ? b - 0x20 : b;
const IDENTITY = new Uint8Array(256);
for (let b = 0; b < 256; b++) IDENTITY[b] = b;

export class ByteTable<V> {
  private keys: (Uint8Array | undefined)[];
  private values: (V | undefined)[];
  private mask: number;
  private count = 0;
  private readonly fold: Uint8Array;

  /** `caseInsensitive`: ASCII letters compare equal in either case (command names). */
  constructor(caseInsensitive: boolean, initialSlots = 64) {
    this.fold = caseInsensitive ? UPPER : IDENTITY;
    let slots = 16;
    while (slots < initialSlots) slots *= 2;
    this.keys = new Array<Uint8Array | undefined>(slots).fill(undefined);
    this.values = new Array<V | undefined>(slots).fill(undefined);
    this.mask = slots - 1;
  }

  get size(): number {
    return this.count;
  }

  get(buf: Uint8Array, off: number, len: number): V | undefined {
    const fold = this.fold;
    const keys = this.keys;
    let i = hash(fold, buf, off, len) & this.mask;
    for (;;) {
      const k = keys[i];
      if (k === undefined) return undefined;
      if (k.length === len && equalFolded(fold, k, buf, off, len)) return this.values[i];
      i = (i + 1) & this.mask;
    }
  }

  getString(key: string): V | undefined {
    const b = Buffer.from(key, 'latin1');
    return this.get(b, 0, b.length);
  }

  /** Adds or replaces; the key bytes are copied (folded), so the caller may reuse its buffer. */
  set(buf: Uint8Array, off: number, len: number, value: V): void {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const fold = this.fold;
    let i = hash(fold, buf, off, len) & this.mask;
    for (;;) {
      const k = this.keys[i];
      if (k === undefined) break;
      if (k.length === len && equalFolded(fold, k, buf, off, len)) {
        this.values[i] = value;
        return;
      }
      i = (i + 1) & this.mask;
    }
    // A Buffer like the chunks looked up against: one typed-array kind keeps the loops monomorphic.
    const key = Buffer.allocUnsafeSlow(len);
    for (let j = 0; j < len; j++) key[j] = fold[buf[off + j]!]!;
    this.keys[i] = key;
    this.values[i] = value;
    this.count++;
  }

  setString(key: string, value: V): void {
    const b = Buffer.from(key, 'latin1');
    this.set(b, 0, b.length, value);
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const slots = oldKeys.length * 2;
    this.keys = new Array<Uint8Array | undefined>(slots).fill(undefined);
    this.values = new Array<V | undefined>(slots).fill(undefined);
    this.mask = slots - 1;
    this.count = 0;
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i];
      if (k !== undefined) this.set(k, 0, k.length, oldValues[i] as V);
    }
  }
}

/** Multiply-add over the folded bytes, kept in int32 so V8 never leaves small-integer arithmetic. */
function hash(fold: Uint8Array, buf: Uint8Array, off: number, len: number): number {
  let h = len;
  for (let j = 0; j < len; j++) h = (Math.imul(h, 31) + fold[buf[off + j]!]!) | 0;
  return h ^ (h >> 9);
}

function equalFolded(fold: Uint8Array, key: Uint8Array, buf: Uint8Array, off: number, len: number): boolean {
  for (let j = 0; j < len; j++) if (key[j] !== fold[buf[off + j]!]) return false;
  return true;
}
