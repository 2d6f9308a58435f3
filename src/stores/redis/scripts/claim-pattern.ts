/**
 * The Lua pattern of a packed claim (`status` field, receipt-fields.ts): captures attempts, state (`p` or `f`),
 * claimed_at and the fingerprint part (`-` or `=<fingerprint>`). A value of the previous layout (a word)
 * does not match.
 */
export const CLAIM_PATTERN = '^(%d+):(%a):(%d+):(.*)$';
