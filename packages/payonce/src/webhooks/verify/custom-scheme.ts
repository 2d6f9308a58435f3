import { InvalidOption } from '../../core/errors.js';
import { checkVerifyInput } from './check-verify-input.js';
import { schemeName } from './scheme-options.js';
import { accept, reject, type SignatureScheme, type VerifyInput, type VerifyResult } from './signature-scheme.js';

/** Options of {@link customScheme}. */
export interface CustomSchemeOptions {
  /** Scheme name in results. */
  name: string;
  /**
   * Decides authenticity. `true` accepts (secret index 0, no timestamp), `false` is `signature_mismatch`, or
   * return a full {@link VerifyResult}. May be async. Receives the already-checked input.
   */
  verify(input: VerifyInput): boolean | VerifyResult | Promise<boolean | VerifyResult>;
}

/**
 * A scheme backed by your own function, for providers payonce does not know (ed25519 keys, IP allow-lists,
 * fetch-back confirmation). The input is checked first (`RawBodyRequired` for non-bytes); if the function
 * throws or rejects, the delivery is rejected with `verifier_error` (fail closed) and the error's class name
 * in `detail` — never its message, which could carry secrets.
 * @throws {InvalidOption} at construction: bad name or `verify` not a function.
 * @see docs/design.md §5 "Signature schemes".
 * @example customScheme({ name: 'yookassa-ip', verify: ({ headers }) => allowlist.has(String(headers['x-real-ip'])) });
 */
export function customScheme(options: CustomSchemeOptions): SignatureScheme {
  const name = schemeName(options.name, '');
  const fn = options.verify;
  if (typeof fn !== 'function') throw new InvalidOption('verify', 'must be a function');

  async function verify(input: VerifyInput): Promise<VerifyResult> {
    const checked = checkVerifyInput(input);
    let outcome: boolean | VerifyResult;
    try {
      outcome = await fn(checked);
    } catch (error) {
      const kind = error instanceof Error ? error.constructor.name : typeof error;
      return reject(name, 'verifier_error', null, `custom verifier threw ${kind}`);
    }
    if (outcome === true) return accept(name, 0, null);
    if (outcome === false) return reject(name, 'signature_mismatch', null, 'custom verifier returned false');
    if (typeof outcome === 'object' && outcome !== null && typeof outcome.ok === 'boolean') return outcome;
    return reject(name, 'verifier_error', null, 'custom verifier returned neither a boolean nor a VerifyResult');
  }
  return { name, verify };
}
