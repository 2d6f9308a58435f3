import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** A header's single value (the first of several). */
function header(headers: Readonly<Record<string, string | readonly string[] | undefined>>, name: string) {
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? (value[0] as string | undefined) : (value as string | undefined);
}

/**
 * The key a call is authorised with, or `null`: `Authorization: Basic base64("Paycom:" + key)` where `key` is one
 * of `keys` (compared in constant time on digests). Any other login, a missing header or another scheme → `null`.
 * @see fixtures payme/auth/01…04 (the template compares the full "Paycom:<key>" string).
 */
export function authorisedKey(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  keys: readonly string[],
): string | null {
  const value = header(headers, 'authorization');
  const match = value === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value);
  if (match === null) return null;
  const presented = digest(Buffer.from(match[1] as string, 'base64').toString('utf8'));
  let found: string | null = null;
  for (const key of keys) {
    if (timingSafeEqual(presented, digest(`Paycom:${key}`)) && found === null) found = key;
  }
  return found;
}
