import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The shared Payme fixtures (../shared/fixtures/providers/payme): the only source of protocol values here. */
const ROOT = new URL('../../../../shared/fixtures/providers/payme/', import.meta.url);
const read = <T>(path: string): T => JSON.parse(readFileSync(new URL(path, ROOT), 'utf8')) as T;

interface AuthFixture {
  readonly secret: string;
  readonly headers: Record<string, string>;
  readonly raw_body: string;
  readonly expected: 'valid' | 'invalid';
}
interface RpcFixture {
  readonly request_example?: { readonly method: string; readonly params: Record<string, unknown> };
  readonly request_example_partial?: { readonly method: string; readonly params: Record<string, unknown> };
}

/** The project's own Payme additions (fixtures/providers/payme in this repository: ../shared is read-only). */
const OWN = new URL('../../../fixtures/providers/payme/', import.meta.url);

/** Payme's documented SetFiscalData request (developer.help.paycom.uz, metody-merchant-api/setfiscaldata). */
export const SET_FISCAL_DATA = JSON.parse(readFileSync(new URL('set-fiscal-data.json', OWN), 'utf8')) as {
  request_example: { params: { id: string; type: string; fiscal_data: Record<string, unknown> } };
};

export const AUTH = {
  valid: read<AuthFixture>('auth/01-basic-auth-valid.json'),
  wrongPassword: read<AuthFixture>('auth/02-wrong-password.json'),
  missing: read<AuthFixture>('auth/03-missing-authorization.json'),
  wrongLogin: read<AuthFixture>('auth/04-wrong-login.json'),
};

export const ERRORS = read<{ general: Record<string, string>; merchant: Record<string, string> }>('errors.json');
export const STATES = read<{ states: Record<string, string>; reasons: Record<string, string>; timeout_ms: number }>(
  'states-and-reasons.json',
);

const checkPerform = read<RpcFixture>('rpc/CheckPerformTransaction.json').request_example!;
const create = read<RpcFixture>('rpc/CreateTransaction.json').request_example_partial!;
const cancel = read<RpcFixture>('rpc/CancelTransaction.json').request_example!;

/** The cashbox key of the auth fixtures. */
export const KEY = AUTH.valid.secret;
/** Authorization headers that pass (fixture 01). */
export const GOOD_HEADERS = AUTH.valid.headers;
/** The fixtures' example amount (tiyin), account, Payme id, creation time and cancel reason. */
export const AMOUNT = checkPerform.params.amount as number;
export const ACCOUNT = checkPerform.params.account as Record<string, string>;
export const PAYME_ID = create.params.id as string;
export const PAYME_TIME = create.params.time as number;
export const CANCEL_REASON = cancel.params.reason as number;

/** An error code of errors.json by its key (`-31008`, …), as a number, failing when the fixture lacks it. */
export function code(key: string): number {
  const known = { ...ERRORS.general, ...ERRORS.merchant };
  if (!(key in known)) throw new Error(`errors.json has no ${key}`);
  return Number(key.split('..')[0]);
}

/** A fresh 24-hex-character Payme-like transaction id (placeholder data of the fixture's format). */
export const newPaymeId = () => randomBytes(12).toString('hex');
