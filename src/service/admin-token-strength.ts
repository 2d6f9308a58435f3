import { InvalidOption } from '../core/errors.js';

/** Fewest characters an admin token may have (32: e.g. `openssl rand -hex 16`, 128 bits). */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/** Fewest distinct characters an admin token may have (random hex of 32 characters has 9 or more, 14 on average). */
export const MIN_ADMIN_TOKEN_DISTINCT = 8;

/** Visible ASCII: what an `Authorization: Bearer` header and a login form carry unchanged. */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** True when `token` is one shorter block repeated (`abcabcabc…`). */
function isRepeated(token: string): boolean {
  return (token + token).indexOf(token, 1) < token.length;
}

/**
 * Refuses an admin token that a guess or a brute force could find: shorter than {@link MIN_ADMIN_TOKEN_LENGTH}
 * characters, outside visible ASCII, with fewer than {@link MIN_ADMIN_TOKEN_DISTINCT} distinct characters, or one
 * block repeated. Random tokens pass (`openssl rand -hex 16`, `openssl rand -base64 32`); words and placeholders
 * (`storm-admin-token`, `changeme…`) do not. The message never quotes the token.
 * @throws {InvalidOption} `adminToken` (code `INVALID_OPTION`) naming the rule it breaks.
 * @see docs/console.md "Admin token"; OWASP Authentication cheat sheet (secrets of at least 128 bits).
 */
export function checkAdminTokenStrength(token: string): void {
  const fix = 'generate one, e.g. openssl rand -hex 32';
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new InvalidOption(
      'adminToken',
      `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters, got ${token.length} (${fix})`,
    );
  }
  if (!VISIBLE_ASCII.test(token)) {
    throw new InvalidOption('adminToken', `must be visible ASCII characters only, no spaces (${fix})`);
  }
  if (new Set(token).size < MIN_ADMIN_TOKEN_DISTINCT || isRepeated(token)) {
    throw new InvalidOption(
      'adminToken',
      `is too predictable: too few distinct characters or a repeated block (${fix})`,
    );
  }
}
