import { InvalidOption } from '../../core/errors.js';
import { decodeBase64, utf8 } from './bytes.js';
import { checkVerifyInput } from './check-verify-input.js';
import { headerValue } from './headers.js';
import { matchingSecret } from './match-signature.js';
import { schemeName } from './scheme-options.js';
import { accept, reject, type SyncSignatureScheme, type VerifyInput, type VerifyResult } from './signature-scheme.js';

/** Options of {@link basicAuthScheme}. */
export interface BasicAuthSchemeOptions {
  /** Scheme name in results. @default 'basic' */
  name?: string;
  /** The expected user name; must not contain `:`. */
  username: string;
  /** Accepted passwords (several during rotation); non-empty. */
  passwords: string | readonly string[];
}

const HEADER = 'Authorization';

/**
 * HTTP Basic authentication of the caller (RFC 7617): `Authorization: Basic base64(username ":" password)`,
 * the scheme name matched case-insensitively, the credentials compared as whole `user:password` UTF-8 bytes in
 * constant time against every accepted password. Authenticates the sender, not the body: there is nothing to
 * replay-protect, so `timestampSec` is `null`.
 * @throws {InvalidOption} empty or `:`-containing user name, no password, an empty password.
 * @see RFC 7617 §2; RFC 9110 §11.1 (auth-scheme is case-insensitive).
 * @example basicAuthScheme({ username: 'hooks', passwords: [newPassword, oldPassword] });
 */
export function basicAuthScheme(options: BasicAuthSchemeOptions): SyncSignatureScheme {
  const name = schemeName(options.name, 'basic');
  const { username } = options;
  if (typeof username !== 'string' || username === '' || username.includes(':')) {
    throw new InvalidOption('username', 'must be a non-empty string without ":"');
  }
  const passwords = typeof options.passwords === 'string' ? [options.passwords] : options.passwords;
  if (!Array.isArray(passwords) || passwords.length === 0)
    throw new InvalidOption('passwords', 'at least one is required');
  const expected = passwords.map((p, i) => {
    if (typeof p !== 'string' || p === '')
      throw new InvalidOption('passwords', `entry ${i} must be a non-empty string`);
    return utf8(`${username}:${p}`);
  });

  function verify(input: VerifyInput): VerifyResult {
    const { headers } = checkVerifyInput(input);
    const value = headerValue(headers, HEADER);
    if (value === undefined) return reject(name, 'missing_header', HEADER, 'header is missing');
    const match = /^([^ ]+) +([^ ]+)$/.exec(value);
    if (match?.[1]?.toLowerCase() !== 'basic') {
      return reject(name, 'malformed_header', HEADER, 'expected "Basic <base64 credentials>"');
    }
    const credentials = decodeBase64(match[2] ?? '');
    if (credentials === undefined) return reject(name, 'malformed_header', HEADER, 'credentials are not base64');
    const index = matchingSecret(expected, [credentials], (e) => e);
    if (index >= 0) return accept(name, index, null);
    return reject(name, 'signature_mismatch', HEADER, `credentials match none of ${expected.length} password(s)`);
  }
  return { name, verify };
}
