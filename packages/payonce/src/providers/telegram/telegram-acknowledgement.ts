import type { Acknowledgement } from '../../webhooks/intake-acknowledgement.js';
import { problemOf } from '../../webhooks/intake-problem.js';

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json' });
const RECEIVED = '{"received":true}';

/**
 * How a Telegram webhook is answered. Telegram only looks at the status: a 2xx ends the delivery, anything else is
 * repeated "until a reasonable number of attempts". So an applied update and a `WebhookDecline` are both
 * `200 {"received":true}` (stored and replayed to every redelivery), and every problem is problem+json with its
 * status: 401 for a missing or wrong secret token, 409/5xx while the update is in progress or its handler failed
 * (Telegram repeats it and the receipt decides). The handler's result is never put in the answer: Telegram would
 * run a Bot API method found in a webhook's answer, and a replayed answer must never run it a second time.
 * @see https://core.telegram.org/bots/api#setwebhook ("different from 2XY … we will repeat the request"),
 * https://core.telegram.org/bots/api#making-requests-when-getting-updates; fixtures/providers/telegram/protocol.json.
 */
export function telegramAcknowledgement(): Acknowledgement {
  return {
    accepted: () => ({ status: 200, headers: JSON_HEADERS, body: RECEIVED }),
    declined: () => ({ status: 200, headers: JSON_HEADERS, body: RECEIVED }),
    deliver: (stored) => stored,
    problem: (problem) => problemOf(problem),
  };
}
