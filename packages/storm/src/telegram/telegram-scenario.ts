import type { CustomerPayResult, SandboxUpdate } from '@payonce/sandbox/telegram';
import type { BaseStormContext } from '../provider/base-storm-context.js';
import type { CommonPayFaults } from '../provider/pay-scenarios.js';
import type {
  ProviderScenario,
  ProviderScenarioCounts,
  ProviderScenarioResult,
} from '../provider/provider-scenario.js';
import type { TelegramStormTarget } from './telegram-storm-target.js';
import type { UpdateDeliverer } from './telegram-update-pump.js';
import type { WebhookPostOptions } from './telegram-webhook-post.js';

/** An order the Telegram storm created: its id (the invoice payload), stars, payer and the sandbox invoice. */
export interface TelegramStormOrder {
  readonly orderId: string;
  readonly stars: number;
  /** The buyer's user id (a private chat: also the chat the invoice went to). */
  readonly userId: number;
  /** The sandbox invoice's ref, for the customer's payment. */
  readonly invoiceRef: string;
}

/** What the Telegram storm found for one order a scenario touched. */
export interface TelegramOrderJudgement {
  readonly orderId: string;
  /** Payments Telegram's (the sandbox's) ledger holds for the order (money taken). */
  readonly charges: number;
  /** Refunds in that ledger. */
  readonly refunds: number;
  /** Stars paid minus refunded, by the ledger. */
  readonly payerStars: number;
  /** Stars the merchant holds as paid (`readOrder().heldTiyin`). */
  readonly merchantStars: number;
  readonly paidTransitions: number;
  readonly fulfilments: number;
  readonly targetRefunds: number;
  /** Broken rules; empty when the order passes. */
  readonly problems: readonly string[];
}

/** The numbers of the Telegram storm table for one scenario. */
export interface TelegramScenarioCounts extends ProviderScenarioCounts {
  /** Payments Telegram's ledger holds (`successful_payment`s sent by the sandbox). */
  readonly charges: number;
}

/** The result of one Telegram scenario. */
export type TelegramScenarioResult = ProviderScenarioResult<TelegramScenarioCounts, TelegramOrderJudgement>;

/**
 * What a Telegram scenario works with beside the common context: the target, fresh orders (created, invoiced, each
 * judged at `conclude()`), the sandbox customer paying with the scenario's webhook faults, single webhook POSTs.
 */
export interface TelegramStormContext {
  readonly target: TelegramStormTarget;
  /** Creates an `XTR` order of `stars` (default: random 1…999), has the bot invoice it, and tracks it. */
  newOrder(stars?: number): Promise<TelegramStormOrder>;
  /**
   * The sandbox customer pays the order's invoice (pre-checkout, then `successful_payment`); its updates reach the
   * bot through `deliver` (default: once, repeated until a 2xx, as Telegram does).
   */
  pay(order: TelegramStormOrder, deliver?: UpdateDeliverer): Promise<CustomerPayResult>;
  /** The common pay step (`jobRerunScenario`): `pay` with the default delivery. */
  payer(): { pay(order: TelegramStormOrder, faults?: CommonPayFaults): Promise<CustomerPayResult> };
  /** One webhook POST of `update` (counted); its status, `null` without an answer. */
  post(update: SandboxUpdate, options?: WebhookPostOptions): Promise<number | null>;
  /** Telegram's redelivery: POSTs `update` until a 2xx (or the deadline); the statuses seen. */
  redeliver(update: SandboxUpdate): Promise<readonly (number | null)[]>;
  /** The order's updates the storm received from the sandbox so far (pre-checkouts, payments). */
  updatesOf(order: TelegramStormOrder): readonly SandboxUpdate[];
  /** A fresh `update_id` for an update the storm crafts itself (far above the sandbox's). */
  newUpdateId(): number;
  /** Counts one injected fault (a copy, a cut answer, a forged or foreign update). */
  injected(count?: number): void;
}

/** The context a Telegram scenario gets (with the common part every provider storm has). */
export type TelegramContext = TelegramStormContext & BaseStormContext<TelegramScenarioResult>;

/**
 * One Telegram storm scenario: `run` plays Telegram against the bot through `ctx` and ends with `ctx.conclude()`,
 * which judges every order it touched (at most one charge, one paid transition, one fulfilment; Telegram's ledger =
 * the merchant's stars; nothing lost). Numbered 1…8 as docs/storm.md "Telegram storm" lists them.
 */
export type TelegramScenario = ProviderScenario<TelegramContext, TelegramScenarioResult>;
