import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** A header's single value (the first of several). */
function header(headers: Readonly<Record<string, string | readonly string[] | undefined>>, name: string) {
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? (value[0] as string | undefined) : (value as string | undefined);
}

/**
 * Whether `headers` carry `Authorization: Basic base64(login + ":" + password)` with this login and password,
 * compared in constant time on SHA-256 digests. A missing header, another scheme or other credentials → false.
 * @see fixtures uzum/examples/auth.json; https://developer.uzumbank.uz/en/merchant/ (Authorization); RFC 7617.
 */
export function isUzumAuthorised(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  login: string,
  password: string,
): boolean {
  const value = header(headers, 'authorization');
  const match = value === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value);
  if (match === null) return false;
  const presented = digest(Buffer.from(match[1] as string, 'base64').toString('utf8'));
  return timingSafeEqual(presented, digest(`${login}:${password}`));
}
