import { InvalidOption } from 'payonce/internal/core/errors.js';

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

/** Shortest repeated substring, consecutive run and word {@link checkAdminTokenStrength} looks at. */
const PATTERN_LENGTH = 4;

/**
 * Words and placeholders people put in config files; a token made mostly of them is refused (compared without case).
 * @see NIST SP 800-63B §5.1.1.2 (refuse dictionary words and context-specific words).
 */
const PLACEHOLDER_WORDS = [
  'changeme',
  'change',
  'password',
  'passw0rd',
  'secret',
  'admin',
  'token',
  'example',
  'placeholder',
  'test',
  'default',
  'letmein',
  'qwerty',
  'welcome',
  'payonce',
  'storm',
  'sample',
  'dummy',
  'replace',
  'please',
  'console',
  'operator',
  'master',
  'root',
  'login',
  'local',
  'insecure',
  'your',
  'here',
] as const;

/** True when at least half of `token`'s characters are marked in `covered`. */
function mostlyCovered(covered: readonly boolean[]): boolean {
  return covered.filter(Boolean).length * 2 >= covered.length;
}

/** True when `token` is mostly one shorter block repeated: at most half of its 4-character substrings differ. */
function isMostlyRepeated(token: string): boolean {
  const grams = new Set<string>();
  const total = token.length - PATTERN_LENGTH + 1;
  for (let i = 0; i < total; i++) grams.add(token.slice(i, i + PATTERN_LENGTH));
  return grams.size * 2 <= total;
}

/** True when at least half of `token` lies in runs of 4+ consecutive characters (`abcd…`, `9876…`). */
function isMostlySequential(token: string): boolean {
  const covered = new Array<boolean>(token.length).fill(false);
  let start = 0;
  for (let i = 1; i <= token.length; i++) {
    const step = i < token.length ? token.charCodeAt(i) - token.charCodeAt(i - 1) : 0;
    const firstStep = i - start >= 2 ? token.charCodeAt(start + 1) - token.charCodeAt(start) : step;
    if (i < token.length && Math.abs(step) === 1 && step === firstStep) continue;
    if (i - start >= PATTERN_LENGTH) covered.fill(true, start, i);
    start = i < token.length && Math.abs(step) === 1 ? i - 1 : i;
  }
  return mostlyCovered(covered);
}

/** True when at least half of `token` is words of {@link PLACEHOLDER_WORDS}, in any case. */
function isMostlyWords(token: string): boolean {
  const lower = token.toLowerCase();
  const covered = new Array<boolean>(token.length).fill(false);
  for (const word of PLACEHOLDER_WORDS) {
    for (let at = lower.indexOf(word); at !== -1; at = lower.indexOf(word, at + 1)) {
      covered.fill(true, at, at + word.length);
    }
  }
  return mostlyCovered(covered);
}

/**
 * Refuses an admin token that a guess or a brute force could find: shorter than {@link MIN_ADMIN_TOKEN_LENGTH}
 * characters, outside visible ASCII, with fewer than {@link MIN_ADMIN_TOKEN_DISTINCT} distinct characters, one
 * block repeated, or at least half of it a repeated block (half its 4-character substrings or more repeat), runs of
 * 4+ consecutive characters (`abcd`, `4321`) or placeholder words (`changeme`, `password`, `secret`, `admin`,
 * `token`, `example`, `test`…, any case). Random tokens pass (`openssl rand -hex 16`, `openssl rand -base64 32`); words and placeholders
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
  if (new Set(token).size < MIN_ADMIN_TOKEN_DISTINCT || isRepeated(token) || isMostlyRepeated(token)) {
    throw new InvalidOption(
      'adminToken',
      `is too predictable: too few distinct characters or mostly a repeated block (${fix})`,
    );
  }
  if (isMostlySequential(token)) {
    throw new InvalidOption('adminToken', `is too predictable: mostly runs of consecutive characters (${fix})`);
  }
  if (isMostlyWords(token)) {
    throw new InvalidOption('adminToken', `is too predictable: mostly words or placeholders (${fix})`);
  }
}
