export * from './types.js';
export { RequestFramer, type RequestFramerOptions } from './request-framer.js';
export { ReplyFramer } from './reply-framer.js';
export { requestCommandName } from './request-frame.js';
export {
  commandName, commandNameAt, learnedCommandNames, MAX_LEARNED_NAMES, UNKNOWN_COMMAND_NAME,
} from './command-name.js';
export { DEFAULT_FRAMER_OPTIONS, DEFAULT_MAX_BULK_BYTES, INLINE_MAX_BYTES } from './limits.js';
