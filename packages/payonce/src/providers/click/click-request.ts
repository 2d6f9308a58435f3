import { parseClickForm } from '../../webhooks/verify/click-scheme.js';
import { CLICK_ANSWERS, type ClickAnswer } from './click-answers.js';
import { isClickSigned } from './click-sign.js';

/** A signed Prepare (action 0) or Complete (action 1), its fields checked and converted. */
export interface ClickCall {
  readonly action: 0 | 1;
  /** Click's id of this attempt to pay (`click_trans_id`). */
  readonly clickTransId: number;
  /** Click's payment id shown to the customer (`click_paydoc_id`), `null` when not sent. */
  readonly clickPaydocId: number | null;
  readonly serviceId: number;
  /** The order, as the merchant named it for Click (`merchant_trans_id`). */
  readonly merchantTransId: string;
  /** `amount` as sent (soums). */
  readonly amount: string;
  /** Complete only: the id the merchant answered the Prepare with; `null` in a Prepare. */
  readonly merchantPrepareId: number | null;
  /** Click's `error`: 0, or a negative code when the payment failed at Click. */
  readonly error: number;
}

/** Fields of the call echoed in any answer, when they could be read. */
export interface ClickEcho {
  readonly action: 0 | 1 | null;
  readonly clickTransId: number | null;
  readonly merchantTransId: string | null;
}

/** The outcome of reading a request: a call to run, or the error to answer at once. */
export type ParsedClickRequest =
  | { readonly call: ClickCall; readonly echo: ClickEcho }
  | { readonly refused: ClickAnswer; readonly echo: ClickEcho };

const REQUIRED = ['click_trans_id', 'service_id', 'merchant_trans_id', 'amount', 'action', 'sign_time', 'sign_string'];
const ID = /^[1-9][0-9]{0,15}$/;
const INT = /^-?[0-9]{1,9}$/;

/** A positive safe integer from decimal digits, or `null`. */
function idOf(text: string | undefined): number | null {
  if (text === undefined || !ID.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

function echoOf(fields: ReadonlyMap<string, string>): ClickEcho {
  const action = fields.get('action');
  return {
    action: action === '0' ? 0 : action === '1' ? 1 : null,
    clickTransId: idOf(fields.get('click_trans_id')),
    merchantTransId: fields.get('merchant_trans_id') ?? null,
  };
}

/**
 * Reads a SHOP API form post in Click's documented check order: not a UTF-8 form with each field once, or a
 * required field missing (`merchant_prepare_id` too when action is 1) → -8; `sign_string` not matching under any of
 * `secretKeys` → -1; `action` other than 0/1 → -3; ids that are not positive integers, an `error` that is not zero
 * or a negative integer, or a `service_id` other than `serviceId` → -8.
 * @see https://docs.click.uz/en/click-api-request/; fixtures click/protocol.json "official_lib_check_order".
 */
export function parseClickRequest(
  rawBody: Uint8Array | string,
  secretKeys: readonly string[],
  serviceId: number,
): ParsedClickRequest {
  const bytes = typeof rawBody === 'string' ? new TextEncoder().encode(rawBody) : rawBody;
  const fields = parseClickForm(bytes);
  if (fields === undefined) return { refused: CLICK_ANSWERS.badRequest, echo: echoOf(new Map()) };
  const echo = echoOf(fields);
  const get = (name: string) => fields.get(name) ?? '';
  const action = get('action');
  const required = action === '1' ? [...REQUIRED, 'merchant_prepare_id'] : REQUIRED;
  if (required.some((name) => get(name) === '')) return { refused: CLICK_ANSWERS.badRequest, echo };
  const signed = {
    click_trans_id: get('click_trans_id'),
    service_id: get('service_id'),
    merchant_trans_id: get('merchant_trans_id'),
    merchant_prepare_id: fields.get('merchant_prepare_id'),
    amount: get('amount'),
    action,
    sign_time: get('sign_time'),
  };
  if (!isClickSigned(signed, get('sign_string'), secretKeys)) return { refused: CLICK_ANSWERS.signCheckFailed, echo };
  if (echo.action === null) return { refused: CLICK_ANSWERS.actionNotFound, echo };
  const clickTransId = echo.clickTransId;
  const paydoc = fields.get('click_paydoc_id');
  const clickPaydocId = paydoc === undefined || paydoc === '' ? null : idOf(paydoc);
  const merchantPrepareId = echo.action === 1 ? idOf(get('merchant_prepare_id')) : null;
  // 0 is success; Click reports a failed payment with a negative code. A positive one is undocumented: refused.
  const error =
    get('error') === '' ? 0 : INT.test(get('error')) && Number(get('error')) <= 0 ? Number(get('error')) : null;
  if (
    clickTransId === null ||
    idOf(signed.service_id) !== serviceId ||
    (paydoc !== undefined && paydoc !== '' && clickPaydocId === null) ||
    (echo.action === 1 && merchantPrepareId === null) ||
    error === null
  ) {
    return { refused: CLICK_ANSWERS.badRequest, echo };
  }
  return {
    echo,
    call: {
      action: echo.action,
      clickTransId,
      clickPaydocId,
      serviceId,
      merchantTransId: signed.merchant_trans_id,
      amount: signed.amount,
      merchantPrepareId,
      error,
    },
  };
}
