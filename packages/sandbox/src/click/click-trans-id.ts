import { randomBytes } from 'node:crypto';

/** A fresh Click-like `click_trans_id`: a random positive integer below 2^48 (a safe integer, as Click's bigint ids are). */
export const newClickTransId = (): number => randomBytes(6).readUIntBE(0, 6) + 1;
