import type { OpenLoopBatch } from './dispatcher.js';

/** Called once per batch when all its replies are in: `error` is the first wrong reply, or a failure. */
export type BatchAnswered = (batch: OpenLoopBatch, error: string | undefined) => void;

/**
 * One connection of an open-loop run, as the runner sees it: it writes a batch's INCRs (one
 * command, or a window's batch) in one write and reports the batch once all its replies are in,
 * in the order the batches were sent. The runner sets `answered` once, so a send needs no closure.
 */
export interface IncrSender {
  answered: BatchAnswered;
  /** Writes `batch.dues.length` INCRs of the run's counter in one write. */
  send(batch: OpenLoopBatch): void;
  close(): Promise<void>;
}
