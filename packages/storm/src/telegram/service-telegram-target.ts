import { InvalidOption } from 'payonce/internal/core/errors.js';
import { serviceBaseUrl, serviceOrders } from '../provider/service-orders.js';
import type { ServiceControl } from '../service-control.js';
import type { TelegramStormTarget } from './telegram-storm-target.js';

/** Options of {@link serviceTelegramTarget}. */
export interface ServiceTelegramTargetOptions {
  /** Base URL of the service; Telegram posts to `<service>/telegram/webhook`. */
  readonly service: string;
  /** The secret token the service was started with (`payonce serve --telegram-secret-token`). */
  readonly secretToken: string;
  /** The admin token of `/admin/*`; without it the job re-run scenario is skipped. */
  readonly adminToken?: string;
  /** How the crash scenario kills and restarts the service. @default pidKillControl(service) */
  readonly serviceControl?: ServiceControl;
  /** Budget of one HTTP request, ms. @default 30_000 */
  readonly timeoutMs?: number;
}

/** A Telegram target that also owns an HTTP pool: close it when the storm is done. */
export interface ClosableTelegramTarget extends TelegramStormTarget {
  close(): Promise<void>;
}

/**
 * The Telegram storm target of a payonce reference service (docs/service.md "Telegram"): updates to
 * `POST <service>/telegram/webhook`; `XTR` orders through `POST /orders` under a customer of the storm's own
 * (`storm-telegram-<random>`), invoices through `POST /orders/:id/telegram-invoice`, refunds through
 * `POST /orders/:id/telegram-refund`, reads through `GET /orders/:id`. The crash kills the service by its `/healthz`
 * pid (it needs a supervisor); the re-run needs `adminToken`.
 * @throws {InvalidOption} (`service`) not an http(s) URL; (`secretToken`) empty.
 */
export function serviceTelegramTarget(options: ServiceTelegramTargetOptions): ClosableTelegramTarget {
  const service = serviceBaseUrl(options.service);
  if (typeof options.secretToken !== 'string' || options.secretToken === '') {
    throw new InvalidOption('secretToken', 'must be non-empty');
  }
  const orders = serviceOrders({ ...options, service, prefix: 'storm-telegram', currency: 'XTR' });
  const rerun = orders.rerunFulfilment;
  const id = (orderId: string) => encodeURIComponent(orderId);
  return {
    webhookUrl: `${service}/telegram/webhook`,
    secretToken: options.secretToken,
    description: `service ${service}`,
    ...(orders.missing === undefined ? {} : { missing: orders.missing }),
    createOrder: (stars) => orders.createOrder(stars),
    async sendInvoice(orderId, chatId) {
      const answer = await orders.post(`/orders/${id(orderId)}/telegram-invoice`, { chatId });
      const sent = (answer.json as { sent?: unknown } | null)?.sent;
      if (answer.status !== 200 || sent !== true) {
        throw new Error(`POST /orders/:id/telegram-invoice answered ${answer.status}: ${answer.text.slice(0, 200)}`);
      }
    },
    async readOrder(orderId) {
      const { heldMinor, ...counts } = await orders.counts(orderId);
      return { ...counts, heldTiyin: heldMinor };
    },
    async requestRefund(orderId, userId, chargeId) {
      const answer = await orders.post(`/orders/${id(orderId)}/telegram-refund`, { userId, chargeId });
      return { status: answer.status };
    },
    crashAndRestart: () => orders.crashAndRestart(),
    ...(rerun === undefined ? {} : { rerunFulfilment: (orderId: string) => rerun(orderId) }),
    close: () => orders.close(),
  };
}
