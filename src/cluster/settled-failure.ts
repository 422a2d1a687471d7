import { NetworkError } from '../errors.js';
import { mergeNoFreePort } from './listen-ports.js';

/**
 * One error for the rejected among `results`, or undefined when none was: each distinct message
 * once, sorted, so the same failures read the same whichever node or zone came first (a log that
 * says a failure only when it changes depends on that). A single failure is its own error.
 */
export function settledFailure(results: readonly PromiseSettledResult<unknown>[]): Error | undefined {
  // Nodes that found no port in --listen-ports are one message: the range said once, not per node.
  const reasons = mergeNoFreePort(results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : [])));
  if (reasons.length === 0) return undefined;
  const messages = [...new Set(reasons.map((e) => e.message))].sort();
  if (messages.length === 1) return reasons[0];
  const first = reasons[0];
  const text = messages.join('; ');
  return first instanceof NetworkError ? new NetworkError(text, first.code) : new Error(text);
}
