import { MalformedWebhookPayload } from './malformed-webhook-payload.js';
import type { ProviderEvent } from './provider-event.js';

/**
 * Longest value, in characters (Unicode code points), of each extracted field that payonce stores: the
 * columns of the receipt, journal and payments tables on every SQL dialect (`event_type varchar(160)`,
 * `object_id` / `payment_id` / `merchant_reference varchar(200)`); an event id is a receipt key part (160).
 * @see src/stores/sql/migrations (0001, 0002, 0004); `RequestKey` (160 characters per part).
 */
export const EVENT_FIELD_LIMITS = Object.freeze({
  eventId: 160,
  eventType: 160,
  objectId: 200,
  paymentId: 200,
  merchantReference: 200,
});

function charCount(text: string, limit: number): number {
  // UTF-16 length is an upper bound of the code point count: count exactly only when it could matter.
  if (text.length <= limit) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** What is wrong with a stored text field's characters, or `null`: NUL, or a lone UTF-16 surrogate. */
function characterProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain a NUL character';
  return text.isWellFormed() ? null : 'must be well-formed Unicode (no lone surrogate)';
}

/**
 * Refuses an extracted event with a field longer than {@link EVENT_FIELD_LIMITS}, or with a NUL character or a
 * lone UTF-16 surrogate (`"\u0000"`, `"\ud800"` in the JSON) in one of those fields, BEFORE any receipt,
 * journal or business row is written, so every dialect answers the same 400 (SQLite would store it, PostgreSQL
 * refuses NUL in text and MariaDB would fail mid-delivery) and the journal row of the refusal can always be
 * written. Any other Unicode (accents, emoji) is stored as sent (the MySQL tables are `utf8mb4`).
 * @throws {MalformedWebhookPayload} naming the field (`eventType`, `paymentId`, …) and its limit or the
 *   character rule, never its value.
 */
export function checkEventLimits(event: ProviderEvent): void {
  const fields = {
    eventId: event.eventId,
    eventType: event.eventType,
    objectId: event.objectId,
    paymentId: event.paymentId,
    merchantReference: event.merchantReference,
  };
  for (const [field, limit] of Object.entries(EVENT_FIELD_LIMITS)) {
    const value = fields[field as keyof typeof fields];
    if (typeof value !== 'string') continue;
    if (charCount(value, limit) > limit) {
      throw new MalformedWebhookPayload(event.provider, field, `is longer than ${limit} characters`);
    }
    const problem = characterProblem(value);
    if (problem !== null) throw new MalformedWebhookPayload(event.provider, field, problem);
  }
}
