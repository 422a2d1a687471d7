import type { DriverClient } from '../clients.js';
import type { OpenLoopBatch } from './dispatcher.js';
import type { BatchAnswered, IncrSender } from './sender.js';

/**
 * An ioredis client as an open-loop connection: the `auto` shape, where ioredis's own
 * auto-pipelining is what is measured (a promise per command is part of it).
 */
export class IoredisIncrSender implements IncrSender {
  answered: BatchAnswered = () => {};

  constructor(
    readonly client: DriverClient,
    private readonly key: string,
  ) {}

  send(batch: OpenLoopBatch): void {
    const redis = this.client.redis;
    const done = (error: string | undefined): void => this.answered(batch, error);
    if (batch.dues.length === 1) {
      redis.incr(this.key).then((r) => done(wrongReply(r)), (err: Error) => done(wrongReply(err)));
      return;
    }
    const p = redis.pipeline();
    for (let i = 0; i < batch.dues.length; i++) p.incr(this.key);
    p.exec().then(
      (results) => done(results === null ? 'the pipeline was discarded' : results.map(([err, r]) => wrongReply(err ?? r)).find((e) => e !== undefined)),
      (err: Error) => done(wrongReply(err)),
    );
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** undefined for an integer (what INCR returns), else what came instead. */
function wrongReply(reply: unknown): string | undefined {
  if (typeof reply === 'number') return undefined;
  return `INCR replied ${reply instanceof Error ? reply.message : JSON.stringify(reply)}`;
}
