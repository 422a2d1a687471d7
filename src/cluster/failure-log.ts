/**
 * Says a failure that repeats (a refresh every second that fails the same way) once when it starts
 * and again only when its text changes, then once when it clears, instead of at every try.
 */
export class FailureLog {
  private current: string | undefined;

  constructor(private readonly logLine: (line: string) => void) {}

  failed(text: string): void {
    if (text === this.current) return;
    this.current = text;
    this.logLine(text);
  }

  /** `text` is logged only when a failure was: a success after a success says nothing. */
  cleared(text: string): void {
    if (this.current === undefined) return;
    this.current = undefined;
    this.logLine(text);
  }
}
