import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The shared Click fixtures (../shared/fixtures/providers/click): the only source of protocol values here. */
const ROOT = new URL('../../../../shared/fixtures/providers/click/', import.meta.url);
const read = <T>(path: string): T => JSON.parse(readFileSync(new URL(path, ROOT), 'utf8')) as T;

export interface SignatureFixture {
  readonly description: string;
  readonly secret: string;
  readonly headers: Record<string, string>;
  readonly raw_body: string;
  readonly expected: 'valid' | 'invalid';
}

export const SIGNATURES = {
  prepare: read<SignatureFixture>('signature/01-prepare-valid.json'),
  complete: read<SignatureFixture>('signature/02-complete-valid.json'),
  completeWithPrepareFormula: read<SignatureFixture>('signature/03-complete-signed-with-prepare-formula.json'),
  wrongSecret: read<SignatureFixture>('signature/04-prepare-wrong-secret.json'),
  amountFormatting: read<SignatureFixture>('signature/05-amount-string-formatting.json'),
};

export const PROTOCOL = read<{ errors_returned_by_supplier: Record<string, string> }>('protocol.json');

const example = new URLSearchParams(SIGNATURES.prepare.raw_body);
/** The fixtures' secret key, service id, order (merchant_trans_id), amount (sums as sent) and sign_time. */
export const SECRET = SIGNATURES.prepare.secret;
export const SERVICE_ID = Number(example.get('service_id'));
export const ORDER = example.get('merchant_trans_id') as string;
export const AMOUNT = example.get('amount') as string;
export const AMOUNT_TIYIN = Number(AMOUNT) * 100;
export const SIGN_TIME = example.get('sign_time') as string;

/** The `error_note` of a code in protocol.json (its text before the explanation in brackets). */
export function noteOf(code: number): string {
  const text = PROTOCOL.errors_returned_by_supplier[String(code)];
  if (text === undefined) throw new Error(`protocol.json has no error ${code}`);
  return text.split(' (')[0] as string;
}

/** Fields of one Prepare / Complete, before signing. */
export interface ClickFields {
  click_trans_id: number | string;
  merchant_trans_id: string;
  amount: string;
  action: number | string;
  error?: number;
  merchant_prepare_id?: number | string;
  service_id?: number | string;
}

/**
 * A form body as Click POSTs it, signed with the documented formula (written out here, independent of the engine):
 * md5(click_trans_id + service_id + secret + merchant_trans_id + [merchant_prepare_id if action 1] + amount + action
 * + sign_time).
 */
export function clickForm(fields: ClickFields, secret = SECRET): string {
  const service = String(fields.service_id ?? SERVICE_ID);
  const prepareId = String(fields.action) === '1' ? String(fields.merchant_prepare_id ?? '') : '';
  const sign = createHash('md5')
    .update(
      `${fields.click_trans_id}${service}${secret}${fields.merchant_trans_id}${prepareId}${fields.amount}${fields.action}${SIGN_TIME}`,
    )
    .digest('hex');
  const form = new URLSearchParams({
    click_trans_id: String(fields.click_trans_id),
    service_id: service,
    click_paydoc_id: String(Number(fields.click_trans_id) + 1),
    merchant_trans_id: fields.merchant_trans_id,
    amount: fields.amount,
    action: String(fields.action),
    error: String(fields.error ?? 0),
    error_note: fields.error ? 'Payment failed' : 'Success',
    sign_time: SIGN_TIME,
  });
  if (fields.merchant_prepare_id !== undefined) form.set('merchant_prepare_id', String(fields.merchant_prepare_id));
  form.set('sign_string', sign);
  return form.toString();
}

let nextId = Math.floor(Date.now() % 1_000_000_000) * 1000;
/** A fresh Click-like `click_trans_id` (placeholder data: a positive integer unique in this process). */
export const newClickTransId = () => ++nextId;
