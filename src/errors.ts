/**
 * Typed errors. Server error replies (-ERR ...) are data, never thrown; these classes are for
 * failures on our side, each with a message that says what to do.
 */

/** A bad option value. `flag` names the CLI flag (or option key) so the message can point at it. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly flag: string,
    readonly value: unknown,
    readonly accepts: string,
  ) {
    super(`${flag}: ${value === undefined ? 'missing' : `invalid value ${shownValue(value)}`}; expected ${accepts}`);
  }
}

/** A value as JSON, but a number JSON has no text for as itself: `1e400` in a body parses to Infinity, which JSON shows as null. */
function shownValue(value: unknown): string {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
}

/**
 * `err` re-said with the text the user typed for its flag, when `typed` has that flag: a library
 * check of a parsed value shows the number (`--max-seconds: invalid value 0.001`), not what was
 * typed (`"0.0010"`). Anything else is returned as it is.
 */
export function withTypedValue(err: unknown, typed: Readonly<Record<string, string | undefined>>): unknown {
  if (!(err instanceof ConfigError) || err.constructor !== ConfigError) return err;
  const text = Object.hasOwn(typed, err.flag) ? typed[err.flag] : undefined;
  return text === undefined ? err : new ConfigError(err.flag, text, err.accepts);
}

/** redis-server could not be found or did not become ready. */
export class RedisSpawnError extends Error {
  override readonly name = 'RedisSpawnError';
  constructor(
    message: string,
    readonly stderr: string = '',
  ) {
    super(stderr ? `${message}\n--- redis-server stderr ---\n${stderr.trimEnd()}` : message);
  }
}

/** A benchmark configuration produced a wrong, missing or error reply. */
export class VerificationError extends Error {
  override readonly name = 'VerificationError';
  constructor(
    message: string,
    /** 1-based index of the offending command within the configuration, when known. */
    readonly commandIndex?: number,
  ) {
    super(message);
  }
}

/** A socket-level failure on our side (listen failed, upstream unreachable). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * A listener that could not bind the address it was given (listenOn): its `code` says whether the
 * address was the user's mistake (in use, not this machine's, a port or socket path not allowed),
 * which the CLI exits 2 for, or the machine's (out of file descriptors), exit 1.
 */
export class ListenError extends NetworkError {}
