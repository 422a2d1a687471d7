export * from './types.js';
export { RequestFramer } from './request-framer.js';
export { ReplyFramer } from './reply-framer.js';
export { commandName } from './command-name.js';
