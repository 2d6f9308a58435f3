/**
 * The Lua pattern of a packed claim (`status` field, receipt-fields.ts): captures attempts, state (`p` or `f`),
 * claimed_at and the fingerprint part (`-` or `=<fingerprint>`). A value of the previous layout (a word)
 * does not match.
 */
export const CLAIM_PATTERN = '^(%d+):(%a):(%d+):(.*)$';

/**
 * The head of `CLAIM_PATTERN`: captures only attempts and state, and accepts exactly the values `CLAIM_PATTERN`
 * accepts (its last part, `(.*)$`, matches anything). For the completion's hot path: Lua makes a string of every
 * capture, and the fingerprint part is 65 bytes, so the completion script ran in ~3.3–3.7 µs of Redis's time with
 * this pattern against ~4.0–4.7 µs with the full one (packages/bench/notes/redis.md).
 */
export const CLAIM_HEAD_PATTERN = '^(%d+):(%a):%d+:';
