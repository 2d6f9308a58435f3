import type { SandboxUpdate, TelegramMovement } from '@payonce/sandbox/telegram';
import { type StormTimelineEvent, timelineEvent } from '../storm-timeline.js';
import type { WebhookPostOptions } from './telegram-webhook-post.js';

/** What an update carries, in a word: `pre_checkout_query`, `successful_payment`, or its first field. */
function kindOf(update: SandboxUpdate): string {
  if (update.pre_checkout_query !== undefined) return 'pre_checkout_query';
  if ((update.message as { successful_payment?: unknown } | undefined)?.successful_payment !== undefined) {
    return 'successful_payment';
  }
  return Object.keys(update).find((k) => k !== 'update_id') ?? 'bare update';
}

/**
 * One webhook POST of the Telegram storm as a `provider→app` timeline event: the update's kind and `update_id`, the
 * answer's status (`null`: none came), and its fault (another secret token, the answer cut). Never the secret token.
 */
export function deliveryEvent(
  update: SandboxUpdate,
  orderId: string | null,
  status: number | null,
  sentAtMs: number,
  options: WebhookPostOptions = {},
): StormTimelineEvent {
  const faults = [
    ...(options.secretToken === undefined ? [] : ['wrong secret token']),
    ...(options.cutAfterMs === undefined ? [] : ['answer cut']),
  ];
  return timelineEvent({
    atMs: sentAtMs,
    orderId,
    actor: 'provider→app',
    what: `webhook ${kindOf(update)}`,
    status,
    faults,
    detail: `update_id ${update.update_id}`,
  });
}

/**
 * The movements of Telegram's (the sandbox's) ledger about `orders` as `provider` timeline events at `atMs` (the
 * ledger keeps no times: when the storm read it): each payment and refund with its stars and charge id.
 */
export function movementEvents(
  movements: readonly TelegramMovement[],
  orders: ReadonlySet<string>,
  atMs: number,
): StormTimelineEvent[] {
  return movements
    .filter((m) => orders.has(m.payload))
    .map((m) =>
      timelineEvent({
        atMs,
        orderId: m.payload,
        actor: 'provider',
        what: `ledger: ${m.kind} of ${m.amount} ${m.currency === 'XTR' ? 'stars' : m.currency}`,
        detail: `charge ${m.chargeId}, user ${m.userId}`,
      }),
    );
}
