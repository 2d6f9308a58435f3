import { isAscii } from 'node:buffer';
import { bufferOf } from '../../core/buffer-of.js';

/** Unix epoch ms as the decimal text stored in the hash and used as a sorted-set score. */
export const msText = (ms: number): string => String(ms);

/** Bodies up to this many bytes that are pure ASCII become text straight from their bytes (no Buffer of their own). */
const SHORT_BODY_BYTES = 256;

/**
 * The body as a command argument. Pure ASCII (most JSON answers) goes as text: its UTF-8 encoding is the same bytes,
 * and a command of text arguments is encoded as one string instead of a list of pieces copied into a new Buffer.
 * A short body is read into a flat string directly from its bytes. Anything else goes as the raw bytes, so every
 * body is stored byte for byte.
 */
export const bodyArg = (body: Uint8Array): string | Buffer => {
  if (body.byteLength <= SHORT_BODY_BYTES && isAscii(body)) {
    return String.fromCharCode.apply(null, body as unknown as number[]);
  }
  const bytes = bufferOf(body);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes;
};

/**
 * An integer reply as a number, or `null` for any other reply. ioredis returns integers as numbers, but as
 * text when the client was built with `stringNumbers: true`.
 */
export function integerReply(reply: unknown): number | null {
  if (typeof reply === 'number') return reply;
  const text = typeof reply === 'string' ? reply : Buffer.isBuffer(reply) ? reply.toString('latin1') : null;
  return text !== null && /^-?\d+$/.test(text) ? Number(text) : null;
}
