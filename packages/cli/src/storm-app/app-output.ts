/** How many of the app's last output lines an error shows (a stack trace, a driver's error dump). */
export const TAIL_LINES = 80;

/** How many bytes of the app's last output an error shows at most (fewer lines when they are long). */
export const TAIL_BYTES = 8 * 1024;

/** What a secret the app echoed is replaced with. */
export const REDACTED = '[redacted]';

/** Terminal escape sequences (colours, cursor moves) a logger may write: dropped, the reports are plain text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is matched.
const ANSI_ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** A line still being written is cut (its start dropped) beyond this many characters. */
const MAX_PARTIAL_CHARS = 1024 * 1024;

/**
 * The output of the app `payonce storm --start` runs (stdout and stderr, in the order they came), kept to be shown
 * when the app does not start or dies: its last {@link TAIL_LINES} lines, each with every secret the storm gave it
 * (`secrets`: the webhook secret, the API key, the provider credentials) replaced by {@link REDACTED} as the line
 * arrives, so no secret is ever kept or printed, and without terminal colour codes.
 */
export class AppOutput {
  readonly #lines: string[] = [];
  readonly #partial = new Map<string, string>();
  readonly #secrets: readonly string[];
  #count = 0;

  /** @param secrets values never to show (empty ones are ignored). */
  constructor(secrets: readonly string[]) {
    this.#secrets = secrets.filter((secret) => secret !== '');
  }

  /** How many lines the app wrote so far (also those no longer kept). */
  get lineCount(): number {
    return this.#count;
  }

  /** Appends a chunk of `stream` (`stdout`, `stderr`); a line is complete at its `\n`. */
  write(stream: string, chunk: string): void {
    const parts = ((this.#partial.get(stream) ?? '') + chunk).split('\n');
    const rest = parts.pop() ?? '';
    this.#partial.set(stream, rest.length > MAX_PARTIAL_CHARS ? rest.slice(-MAX_PARTIAL_CHARS) : rest);
    for (const line of parts) this.#push(line);
  }

  /** Flushes the unterminated last line of `stream`, if any (when the stream ends: an error printed at exit). */
  end(stream: string): void {
    const rest = this.#partial.get(stream);
    this.#partial.delete(stream);
    if (rest !== undefined && rest !== '') this.#push(rest);
  }

  /**
   * The last lines, oldest first: at most {@link TAIL_LINES} and {@link TAIL_BYTES} bytes (a last line longer than
   * that keeps its end, after `…`).
   */
  tail(): string[] {
    const shown: string[] = [];
    let bytes = 0;
    for (let i = this.#lines.length - 1; i >= 0 && shown.length < TAIL_LINES; i--) {
      const line = this.#lines[i] ?? '';
      const size = Buffer.byteLength(line) + 1;
      if (bytes + size > TAIL_BYTES) {
        if (shown.length === 0)
          shown.push(
            `…${Buffer.from(line)
              .subarray(-(TAIL_BYTES - 4))
              .toString()}`,
          );
        break;
      }
      shown.push(line);
      bytes += size;
    }
    return shown.reverse();
  }

  /**
   * The tail as a block for an error message: `its last output (N lines):` or `its last N of M output lines:`, then
   * the lines; `it wrote no output` when there is none.
   */
  describe(): string {
    const tail = this.tail();
    if (tail.length === 0) return 'it wrote no output';
    const lines = (n: number) => `${n} line${n === 1 ? '' : 's'}`;
    const head =
      tail.length === this.#count
        ? `its output (${lines(tail.length)})`
        : `its last ${lines(tail.length)} of ${this.#count}`;
    return `${head}:\n${tail.join('\n')}`;
  }

  #push(raw: string): void {
    let line = raw.replace(/\r$/, '').replace(ANSI_ESCAPES, '');
    for (const secret of this.#secrets) line = line.split(secret).join(REDACTED);
    this.#count += 1;
    this.#lines.push(line);
    if (this.#lines.length > TAIL_LINES) this.#lines.splice(0, this.#lines.length - TAIL_LINES);
  }
}
