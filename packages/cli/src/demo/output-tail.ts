/**
 * The last lines a child process wrote, kept in memory so they can be shown when something fails and never mixed
 * into normal output. Bounded by line count; a line longer than `maxLineChars` is cut.
 */
export class OutputTail {
  readonly #lines: string[] = [];
  readonly #partial = new Map<string, string>();

  /**
   * @param maxLines how many lines are kept (the oldest are dropped first). @default 400
   * @param maxLineChars a longer line is cut to this many characters. @default 2_000
   */
  constructor(
    readonly maxLines = 400,
    readonly maxLineChars = 2_000,
  ) {}

  /** Appends a chunk of `stream` (e.g. `"1234 stderr"`); a line is complete at its `\n`. */
  write(stream: string, chunk: string): void {
    const text = (this.#partial.get(stream) ?? '') + chunk;
    const parts = text.split('\n');
    this.#partial.set(stream, parts.pop() ?? '');
    for (const line of parts) this.#push(stream, line);
  }

  /** Flushes the unterminated last line of `stream`, if any (call when the stream ends). */
  end(stream: string): void {
    const rest = this.#partial.get(stream);
    this.#partial.delete(stream);
    if (rest !== undefined && rest !== '') this.#push(stream, rest);
  }

  /** The kept lines, oldest first, each prefixed with its stream name in brackets. */
  lines(): readonly string[] {
    return [...this.#lines];
  }

  #push(stream: string, line: string): void {
    const cut = line.length > this.maxLineChars ? `${line.slice(0, this.maxLineChars)}…` : line;
    this.#lines.push(`[${stream}] ${cut.replace(/\r$/, '')}`);
    if (this.#lines.length > this.maxLines) this.#lines.splice(0, this.#lines.length - this.maxLines);
  }
}
