import { receipts0001 } from './0001-receipts.js';
import { payments0002 } from './0002-payments.js';
import { outbox0003 } from './0003-outbox.js';
import { webhookDeliveries0004 } from './0004-webhook-deliveries.js';
import { receiptsProviderPurge0005 } from './0005-receipts-provider-purge.js';
import { serviceFulfilments0006 } from './0006-service-fulfilments.js';
import { adminActions0007 } from './0007-admin-actions.js';
import { outboxOrder0008 } from './0008-outbox-order.js';
import { receiptsFinishNotify0009 } from './0009-receipts-finish-notify.js';
import { paymentRefunds0010 } from './0010-payment-refunds.js';
import { payme0011 } from './0011-payme.js';
import { click0012 } from './0012-click.js';
import { uzum0013 } from './0013-uzum.js';
import { serviceOrderTraces0014 } from './0014-service-order-traces.js';
import { telegramCharges0015 } from './0015-telegram-charges.js';
import { outboxTrace0016 } from './0016-outbox-trace.js';
import { paymentAttemptTrace0017 } from './0017-payment-attempt-trace.js';
import { receiptTrace0018 } from './0018-receipt-trace.js';
import type { SqlMigration } from './sql-migration.js';

/** Every released migration, oldest first. Append new ones; never reorder or edit. */
export const ALL_MIGRATIONS: readonly SqlMigration[] = Object.freeze([
  receipts0001,
  payments0002,
  outbox0003,
  webhookDeliveries0004,
  receiptsProviderPurge0005,
  serviceFulfilments0006,
  adminActions0007,
  outboxOrder0008,
  receiptsFinishNotify0009,
  paymentRefunds0010,
  payme0011,
  click0012,
  uzum0013,
  serviceOrderTraces0014,
  telegramCharges0015,
  outboxTrace0016,
  paymentAttemptTrace0017,
  receiptTrace0018,
]);
