/**
 * The requests a reply toxic (redis_latency, redis_drop) hit, by seq, until their reply comes. Some
 * never get one: sent under CLIENT REPLY OFF or SKIP, or answered by a later stage (a local answer
 * passes no reply hook). Replies come in request order, so at a reply every hit before its request
 * is forgotten: a Set kept each such seq for the connection's life.
 */
export class HitSeqs {
  /** Hit seqs in request order; those before `head` are done. */
  private readonly seqs: number[] = [];
  private head = 0;

  add(seq: number): void {
    this.seqs.push(seq);
  }

  /** Whether the reply to request `seq` (its first frame) is one hit; forgets it and every earlier hit. */
  take(seq: number): boolean {
    const seqs = this.seqs;
    while (this.head < seqs.length && seqs[this.head]! < seq) this.head++;
    const hit = seqs[this.head] === seq;
    if (hit) this.head++;
    if (this.head > 1024 && this.head * 2 > seqs.length) {
      seqs.splice(0, this.head);
      this.head = 0;
    }
    return hit;
  }
}
