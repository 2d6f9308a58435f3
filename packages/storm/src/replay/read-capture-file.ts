import { readFile } from 'node:fs/promises';
import type { Capture } from './capture.js';
import { InvalidCaptureFile } from './invalid-capture-file.js';
import { parseCaptures } from './parse-captures.js';

/**
 * Reads and parses a capture file (JSON lines, UTF-8; see {@link parseCaptures} and `docs/replay.md`).
 * @throws {InvalidCaptureFile} the file cannot be read (missing, a directory, no permission), is not valid UTF-8,
 * or any line is invalid; nothing is returned for a partly valid file.
 * @example const captures = await readCaptureFile('stripe-export.jsonl');
 */
export async function readCaptureFile(path: string): Promise<Capture[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new InvalidCaptureFile(
      path,
      null,
      null,
      `cannot be read (${typeof code === 'string' ? code : String(error)})`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InvalidCaptureFile(path, null, null, 'is not valid UTF-8');
  }
  return parseCaptures(text, path);
}
