import { createHash } from 'node:crypto';
import type { ShownExchange } from '../acceptance/check-runner.js';
import { noAnswer } from '../acceptance/no-answer.js';

/** Where the sandbox sends Click's SHOP API calls, and the service's credentials it signs them with. */
export interface ClickTarget {
  /** The merchant's Prepare URL (Click calls it with `action=0`). */
  readonly prepareUrl: string;
  /** The merchant's Complete URL (`action=1`); may equal `prepareUrl`. */
  readonly completeUrl: string;
  /** The merchant's Click `service_id`. */
  readonly serviceId: number;
  /** The service's SECRET_KEY. Never printed or recorded. */
  readonly secretKey: string;
  /** How long one call waits for its answer, ms. @default 10_000 */
  readonly callTimeoutMs?: number;
  /** Told every call once it ended (answered or not), with when it was sent (epoch ms): a storm's timeline. */
  readonly observe?: (exchange: ClickExchange, sentAtMs: number) => void;
}

/** Click's answer as the sandbox reads it (the merchant's JSON). */
export interface ClickReply {
  readonly click_trans_id?: unknown;
  readonly merchant_trans_id?: unknown;
  readonly merchant_prepare_id?: unknown;
  readonly merchant_confirm_id?: unknown;
  readonly error?: unknown;
  readonly error_note?: unknown;
}

/** One SHOP API call as made and answered, with the secret hidden. */
export interface ClickExchange extends ShownExchange {
  /** The parsed JSON answer, or `null` when the body is not a JSON object. */
  readonly answer: ClickReply | null;
}

/** One call to make. Fields are sent as given (strings), so a test can send what Click would not. */
export interface ClickCallSpec {
  /** 0 (Prepare) or 1 (Complete); any other value is sent to the Prepare URL (the unknown-action check). */
  readonly action: number;
  readonly clickTransId: number;
  readonly merchantTransId: string;
  /** Sums as Click formats them (`1000`, `1000.50`). */
  readonly amount: string;
  /** Complete only. */
  readonly merchantPrepareId?: number;
  /** Click's `error`: 0, or a negative code for a payment that failed at Click. @default 0 */
  readonly error?: number;
  /** Sign with this key instead of the secret (the wrong-signature checks). */
  readonly signWith?: 'secret' | 'wrong-secret';
  /** Leave these fields out of the form (the missing-fields check). */
  readonly omit?: readonly string[];
  /** Stop waiting for the answer after this many ms. */
  readonly abortAfterMs?: number;
}

/** Click's `sign_time` format, `YYYY-MM-DD HH:mm:ss` (Tashkent time, UTC+5, as Click's servers use). */
export function clickSignTime(ms: number): string {
  return new Date(ms + 5 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * Click's `sign_string`, written out here (not imported from the engine): lower-case hex MD5 of `click_trans_id +
 * service_id + SECRET_KEY + merchant_trans_id + [merchant_prepare_id, Complete only] + amount + action + sign_time`.
 * @see https://docs.click.uz/en/click-api-request/ ; fixtures click/protocol.json "complete_sign_string".
 */
export function signClick(fields: Readonly<Record<string, string>>, secretKey: string): string {
  const prepareId = fields.action === '1' ? (fields.merchant_prepare_id ?? '') : '';
  const text = `${fields.click_trans_id}${fields.service_id}${secretKey}${fields.merchant_trans_id}${prepareId}${fields.amount}${fields.action}${fields.sign_time}`;
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** Sums as Click writes them: `1000` for whole sums, `1000.50` otherwise (1 sum = 100 tiyin). */
export const clickAmountOf = (tiyin: number): string =>
  tiyin % 100 === 0 ? String(tiyin / 100) : (tiyin / 100).toFixed(2);

/** The form fields of `spec`, signed. */
export function clickForm(target: ClickTarget, spec: ClickCallSpec, signTime: string): URLSearchParams {
  const fields: Record<string, string> = {
    click_trans_id: String(spec.clickTransId),
    service_id: String(target.serviceId),
    click_paydoc_id: String(spec.clickTransId + 1),
    merchant_trans_id: spec.merchantTransId,
    amount: spec.amount,
    action: String(spec.action),
    error: String(spec.error ?? 0),
    error_note: (spec.error ?? 0) === 0 ? 'Success' : 'Payment failed',
    sign_time: signTime,
  };
  if (spec.merchantPrepareId !== undefined) fields.merchant_prepare_id = String(spec.merchantPrepareId);
  const key = spec.signWith === 'wrong-secret' ? `${target.secretKey}-not-the-key` : target.secretKey;
  fields.sign_string = signClick(fields, key);
  for (const name of spec.omit ?? []) delete fields[name];
  return new URLSearchParams(fields);
}

function parseAnswer(text: string): ClickReply | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as ClickReply) : null;
  } catch {
    return null;
  }
}

/** Where a call goes: the Complete URL for action 1, the Prepare URL for anything else. */
export const clickUrlOf = (target: ClickTarget, spec: ClickCallSpec): string =>
  spec.action === 1 ? target.completeUrl : target.prepareUrl;

/**
 * Makes one SHOP API call the way Click does: HTTP POST of an `application/x-www-form-urlencoded` form to the
 * Prepare URL (action 0, or an unknown action) or the Complete URL (action 1), signed with the secret key. Never
 * throws for a network failure or a bad answer: they are in the returned exchange (`status: null`, `answer: null`).
 * @see https://docs.click.uz/en/click-api-request/ (POST, form fields, sign_string).
 */
export async function callClick(
  target: ClickTarget,
  spec: ClickCallSpec,
  nowMs: number = Date.now(),
): Promise<ClickExchange> {
  const body = clickForm(target, spec, clickSignTime(nowMs)).toString();
  const what = spec.action === 1 ? 'Complete' : spec.action === 0 ? 'Prepare' : `action ${spec.action}`;
  const auth = spec.signWith === 'wrong-secret' ? 'signed with a wrong key' : 'signed with SECRET_KEY';
  const url = clickUrlOf(target, spec);
  const waitMs = spec.abortAfterMs ?? target.callTimeoutMs ?? 10_000;
  const sentAtMs = Date.now();
  let exchange: ClickExchange;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      signal: AbortSignal.timeout(waitMs),
    });
    const received = await response.text();
    exchange = { what, auth, body, status: response.status, received, answer: parseAnswer(received) };
  } catch (error) {
    exchange = { what, auth, body, ...noAnswer(error, waitMs), answer: null };
  }
  target.observe?.(exchange, sentAtMs);
  return exchange;
}
