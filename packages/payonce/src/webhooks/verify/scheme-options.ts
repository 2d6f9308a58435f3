import { InvalidOption } from '../../core/errors.js';
import { utf8 } from './bytes.js';

/** A shared secret: a string (used as its UTF-8 bytes unless the scheme says otherwise) or raw key bytes. */
export type SecretInput = string | Uint8Array;

/** One secret or several active at once (rotation: the old and the new secret during the switch-over). */
export type SecretsInput = SecretInput | readonly SecretInput[];

/**
 * The configured secrets as a non-empty list. Messages name the position of a bad entry, never its value.
 * @throws {InvalidOption} no secret, an empty secret, or an entry that is neither string nor bytes.
 */
export function secretList(secrets: SecretsInput, option = 'secrets'): readonly SecretInput[] {
  const list: readonly unknown[] = typeof secrets === 'string' || secrets instanceof Uint8Array ? [secrets] : secrets;
  if (!Array.isArray(list) || list.length === 0) throw new InvalidOption(option, 'at least one secret is required');
  list.forEach((secret, i) => {
    if (typeof secret === 'string' ? secret.length === 0 : !(secret instanceof Uint8Array) || secret.byteLength === 0) {
      throw new InvalidOption(option, `entry ${i} must be a non-empty string or Uint8Array`);
    }
  });
  return list as readonly SecretInput[];
}

/** The secrets as HMAC keys: strings become their UTF-8 bytes, bytes are copied. */
export function secretKeys(secrets: SecretsInput, option = 'secrets'): readonly Uint8Array[] {
  return secretList(secrets, option).map((s) => (typeof s === 'string' ? utf8(s) : Uint8Array.from(s)));
}

/** True when a string secret starts or ends with whitespace (a copy-paste accident worth a hint). */
export function hasSurroundingWhitespace(secrets: SecretsInput): boolean {
  return secretList(secrets).some((s) => typeof s === 'string' && s.trim() !== s);
}

/**
 * A tolerance in whole seconds, at least 1.
 * @throws {InvalidOption} when not a positive safe integer.
 */
export function toleranceSeconds(value: number | undefined, fallback: number, option = 'toleranceSeconds'): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1)
    throw new InvalidOption(option, 'must be a whole number of seconds, at least 1');
  return v;
}

/**
 * A header name: an RFC 9110 token.
 * @throws {InvalidOption} otherwise.
 */
export function headerName(value: string, option: string): string {
  if (typeof value !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)) {
    throw new InvalidOption(option, 'must be an HTTP header name (RFC 9110 token)');
  }
  return value;
}

/**
 * A scheme name for results and logs: non-empty, at most 64 visible ASCII characters.
 * @throws {InvalidOption} otherwise.
 */
export function schemeName(value: string | undefined, fallback: string): string {
  const v = value ?? fallback;
  if (typeof v !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(v)) {
    throw new InvalidOption('name', 'must be 1 to 64 visible ASCII characters');
  }
  return v;
}
