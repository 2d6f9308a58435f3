import { PayonceError } from 'payonce/internal/core/errors.js';

/**
 * A capture file (JSON lines, `docs/replay.md`) is not valid: a line is not a JSON object, a field is missing,
 * has the wrong type or an unknown name, a header cannot be sent, two captures share an id, or the file holds no
 * capture. Thrown before anything is sent; `payonce replay` exits with status 2.
 */
export class InvalidCaptureFile extends PayonceError<'INVALID_CAPTURE_FILE'> {
  readonly code = 'INVALID_CAPTURE_FILE';
  /** Where the capture file came from (its path, or a label given to `parseCaptures`). */
  readonly source: string;
  /** 1-based line number of the offending line, or `null` for a problem of the whole file. */
  readonly line: number | null;
  /** The field at fault (`headers.stripe-signature`, `bodyBase64`, …), or `null`. */
  readonly field: string | null;
  constructor(source: string, line: number | null, field: string | null, reason: string) {
    const where = line === null ? source : `${source} line ${line}`;
    super(`${where}: ${field === null ? '' : `${field} `}${reason}`);
    this.source = source;
    this.line = line;
    this.field = field;
  }
}
