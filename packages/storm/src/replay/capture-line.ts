import type { CaptureExpectation } from './capture.js';
import { parseCaptures } from './parse-captures.js';

/** One delivery to write into a capture file with {@link captureLine}. */
export interface CaptureRecord {
  readonly id?: string;
  readonly path: string;
  readonly method?: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The exact body: text (written as `body`) or bytes (written as `bodyBase64`). */
  readonly body: string | Uint8Array;
  readonly expect?: CaptureExpectation;
  readonly note?: string;
}

/**
 * One line of a capture file (JSON, no trailing newline) for `record`: text bodies as `body`, byte bodies as
 * `bodyBase64`, so the file keeps the exact bytes. The line is parsed back before it is returned.
 * @throws {InvalidCaptureFile} the record would not be a valid capture (bad path, header, id…).
 * @example await writeFile('captures.jsonl', records.map(captureLine).join('\n') + '\n');
 */
export function captureLine(record: CaptureRecord): string {
  const line = JSON.stringify({
    ...(record.id === undefined ? {} : { id: record.id }),
    path: record.path,
    ...(record.method === undefined ? {} : { method: record.method }),
    headers: record.headers,
    ...(typeof record.body === 'string'
      ? { body: record.body }
      : { bodyBase64: Buffer.from(record.body).toString('base64') }),
    ...(record.expect === undefined ? {} : { expect: record.expect }),
    ...(record.note === undefined ? {} : { note: record.note }),
  });
  parseCaptures(line, `capture ${record.id ?? record.path}`);
  return line;
}
