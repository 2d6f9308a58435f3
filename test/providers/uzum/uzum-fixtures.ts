import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The Uzum fixtures (fixtures/providers/uzum in this repository, with their sources): the only source of protocol
 * values here. They live in the repository, not in ../shared (read-only, and not part of what lands).
 */
const ROOT = new URL('../../../fixtures/providers/uzum/', import.meta.url);
const read = <T>(path: string): T => JSON.parse(readFileSync(new URL(path, ROOT), 'utf8')) as T;

interface Example {
  readonly request: Record<string, unknown>;
  readonly response_ok: { readonly http_status: number; readonly body: Record<string, unknown> };
  readonly response_failed?: { readonly http_status: number; readonly body: Record<string, unknown> };
}
interface AuthVectors {
  readonly login: string;
  readonly password: string;
  readonly vectors: readonly { headers: Record<string, string>; expected: 'valid' | 'invalid'; reason: string }[];
}

export const PROTOCOL = read<{
  error_codes: Record<string, { meaning: string; unconfirmed?: boolean }>;
  http_status: { success: number; failure: number };
}>('protocol.json');
export const EXAMPLES = {
  check: read<Example>('examples/check.json'),
  create: read<Example>('examples/create.json'),
  confirm: read<Example>('examples/confirm.json'),
  reverse: read<Example>('examples/reverse.json'),
  status: read<Example>('examples/status.json'),
};
export const AUTH = read<AuthVectors>('examples/auth.json');

/** The fixtures' service id, account params and amount (tiyin). */
export const SERVICE_ID = EXAMPLES.create.request.serviceId as number;
export const PARAMS = EXAMPLES.create.request.params as Record<string, string>;
export const AMOUNT = EXAMPLES.create.request.amount as number;
/** Authorization headers that pass (the valid vector). */
export const GOOD_HEADERS = AUTH.vectors.find((vector) => vector.expected === 'valid')?.headers as Record<
  string,
  string
>;

/** The fixtures' error code whose meaning starts with `meaning`. */
export function code(meaning: string): string {
  const found = Object.entries(PROTOCOL.error_codes).find(([, entry]) => entry.meaning?.startsWith(meaning));
  if (found === undefined) throw new Error(`no fixture error code means "${meaning}"`);
  return found[0];
}

/** A fresh Uzum-like transId (the fixtures' examples are UUIDs). */
export const newTransId = (): string => randomUUID();
