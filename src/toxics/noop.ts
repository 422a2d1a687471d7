import type { z } from 'zod';
import { attributesOf } from './attributes.js';
import { passThrough, type ByteToxicDefinition } from './definition.js';

const ATTRS = attributesOf({});
export type NoopAttrs = z.output<typeof ATTRS>;

/**
 * toxiproxy's `noop`: a toxic that does nothing. toxiproxy starts every link's chain with one;
 * clients also add it to check that the API answers, or as a placeholder a test updates later.
 */
export const noopToxic: ByteToxicDefinition<NoopAttrs> = {
  kind: 'byte',
  type: 'noop',
  attributes: ATTRS,
  create: ({ next }) => passThrough(next),
};
