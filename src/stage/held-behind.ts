/**
 * The bound on what waits behind a reply a frame stage holds (a promise: redis_drop holds its reply
 * until the connection closes, a large redis_latency holds it long). A pipelining client without
 * timeouts sends on meanwhile, each request's place kept and Redis's replies held (up to
 * --high-water, then Redis is paused), with no bound of its own: this is it.
 */

/**
 * What a request forwarded while a stage holds a reply costs the proxy besides its bytes, until that
 * reply goes: its slot, its RequestInfo, its reply's item and match, and the tap's record. About
 * 1.3 KiB in all was measured for a pipeline of 1 KB SETs behind redis_drop (RSS over bytes sent).
 */
const HELD_REQUEST_COST_BYTES = 1024;

export class HeldBehind {
  /** Bytes of the requests forwarded since a stage began holding a reply, and their cost. */
  private bytes = 0;
  private told = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onTooMuch: () => void,
  ) {}

  /** A request of `bytes` was forwarded behind the held reply. */
  request(bytes: number, heldReplyBytes: number): void {
    this.bytes += bytes + HELD_REQUEST_COST_BYTES;
    this.check(heldReplyBytes);
  }

  /** Redis's replies held behind it now come to `heldReplyBytes`. Past the bound, told once. */
  check(heldReplyBytes: number): void {
    if (this.told || this.bytes + heldReplyBytes <= this.maxBytes) return;
    this.told = true;
    this.onTooMuch();
  }

  /** The held reply went: what follows counts from nothing. */
  released(): void {
    this.bytes = 0;
  }
}
