// redis-parser 3 ships no types; only what the framer benchmark (lab) and the differential test use.
declare module 'redis-parser' {
  interface RedisParserOptions {
    returnReply(reply: unknown): void;
    returnError(error: Error): void;
    returnFatalError?(error: Error): void;
    returnBuffers?: boolean;
    stringNumbers?: boolean;
  }
  class RedisParser {
    constructor(options: RedisParserOptions);
    execute(buffer: Buffer): void;
    reset(): void;
  }
  export default RedisParser;
}
