/**
 * A shop on express 5, Drizzle and PostgreSQL that takes Stripe payments, with payonce: `POST /orders`,
 * `POST /orders/:id/pay` (Idempotency-Key), `POST /webhooks/stripe` (payonce's intake: receipt + order + outbox job
 * in one transaction), `POST /payme` (payonce's Payme Merchant API: order, history and outbox job in the call's
 * transaction; with `PAYME_KEY`, or `PAYONCE_STORM_PAYME_KEY` under the storm), `POST /click/prepare` and
 * `/click/complete` (payonce's Click SHOP API, the same way; with `CLICK_SERVICE_ID` and `CLICK_SECRET_KEY`, or
 * `PAYONCE_STORM_CLICK_*`), `POST /uzum/*` (payonce's Uzum Bank Merchant API, the same way; with `UZUM_LOGIN`,
 * `UZUM_PASSWORD` and `UZUM_SERVICE_ID`, or `PAYONCE_STORM_UZUM_*`), `POST /webhooks/telegram` and
 * `POST /orders/:id/telegram-invoice` (payonce's Telegram Stars engine, src/telegram-shop.ts; with
 * `TELEGRAM_BOT_TOKEN`, `TELEGRAM_WEBHOOK_SECRET` and `TELEGRAM_API_URL`, or `PAYONCE_STORM_TELEGRAM_*`), an outbox
 * worker that ships paid orders, `GET /orders/:id`, `GET /healthz`.
 * Run: `DATABASE_URL=postgres://… STRIPE_API_KEY=sk_test_… STRIPE_WEBHOOK_SECRET=whsec_… npm start`; under
 * `payonce storm --start` the PAYONCE_STORM_* variables point it at the storm's sandbox (docs/storm-your-app.md).
 * `STORM_EXAMPLE_BROKEN=no-receipt` swaps the webhook for a plain route without a receipt (the storm fails it);
 * `STORM_EXAMPLE_BROKEN=payme-no-refund` makes the Payme endpoint ignore Payme's refunds (the Payme storm fails it);
 * `STORM_EXAMPLE_BROKEN=click-paid-on-prepare` marks an order paid at Click's Prepare (the Click storm fails it);
 * `STORM_EXAMPLE_BROKEN=uzum-no-refund` ignores Uzum Bank's reverse after /confirm (the Uzum storm fails it);
 * `STORM_EXAMPLE_BROKEN=telegram-no-receipt` ships a Stars order on every successful_payment delivered, without a
 * receipt (the Telegram storm fails it).
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import express from 'express';
import { IdempotencyGuard } from 'payonce';
import { expressClick } from 'payonce/click/express';
import { keepRawBody } from 'payonce/http/express';
import { Outbox } from 'payonce/outbox';
import { expressPayme } from 'payonce/payme/express';
import { PostgresStore } from 'payonce/postgres';
import { drizzleTransactions } from 'payonce/tx/drizzle';
import { expressUzum } from 'payonce/uzum/express';
import { expressWebhooks } from 'payonce/webhooks/express';
import pg from 'pg';
import { brokenStripeWebhook } from './broken-stripe-webhook.js';
import { clickMerchant } from './click-merchant.js';
import { fulfilmentWorker } from './fulfilment-worker.js';
import { orderRoutes } from './order-routes.js';
import { paymeMerchant } from './payme-merchant.js';
import { SHOP_TABLES_SQL } from './schema.js';
import type { Shop } from './shop.js';
import { stripeClient } from './stripe-client.js';
import { stripeWebhookIntake } from './stripe-webhook.js';
import { telegramOrderView, telegramShop } from './telegram-shop.js';
import { uzumMerchant } from './uzum-merchant.js';

const env = process.env;
const databaseUrl = env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const apiKey = env.PAYONCE_STORM_API_KEY ?? env.STRIPE_API_KEY;
const webhookSecret = env.PAYONCE_STORM_WEBHOOK_SECRET ?? env.STRIPE_WEBHOOK_SECRET;
if (!apiKey || !webhookSecret)
  throw new Error('set STRIPE_API_KEY and STRIPE_WEBHOOK_SECRET (or run under payonce storm)');
const broken = env.STORM_EXAMPLE_BROKEN === 'no-receipt';
const paymeKey = env.PAYONCE_STORM_PAYME_KEY ?? env.PAYME_KEY; // the cashbox key; no key, no /payme
const clickServiceId = Number(env.PAYONCE_STORM_CLICK_SERVICE_ID ?? env.CLICK_SERVICE_ID ?? 0); // none, no /click
const clickSecretKey = env.PAYONCE_STORM_CLICK_SECRET_KEY ?? env.CLICK_SECRET_KEY ?? '';
const uzum = {
  login: env.PAYONCE_STORM_UZUM_LOGIN ?? env.UZUM_LOGIN ?? '',
  password: env.PAYONCE_STORM_UZUM_PASSWORD ?? env.UZUM_PASSWORD ?? '',
  serviceId: Number(env.PAYONCE_STORM_UZUM_SERVICE_ID ?? env.UZUM_SERVICE_ID ?? 0),
}; // none, no /uzum
const telegramBot = {
  token: env.PAYONCE_STORM_TELEGRAM_BOT_TOKEN ?? env.TELEGRAM_BOT_TOKEN ?? '',
  apiUrl: env.PAYONCE_STORM_TELEGRAM_API_URL ?? env.TELEGRAM_API_URL ?? 'https://api.telegram.org',
  webhookSecret: env.PAYONCE_STORM_TELEGRAM_WEBHOOK_SECRET ?? env.TELEGRAM_WEBHOOK_SECRET ?? '',
}; // none, no Telegram

const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
await pool.query(SHOP_TABLES_SQL); // drizzle-kit's migrations in a real app
const store = await PostgresStore.connect(databaseUrl);
await store.migrate({ only: ['receipts', 'http', 'outbox', 'journal', 'payme', 'click', 'uzum', 'telegram'] }); // or `payonce migrate` at deploy
const db = drizzle(pool);
const shop: Shop = {
  db,
  transactions: drizzleTransactions(db),
  store,
  guard: new IdempotencyGuard(store),
  outbox: new Outbox(store),
  stripe: stripeClient(apiKey, env.PAYONCE_STORM_SANDBOX_URL),
  webhookSecret,
};

const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ ok: true, pid: process.pid });
});
// The webhook reads the exact bytes: mounted before the JSON parser.
app.use(broken ? brokenStripeWebhook(shop) : expressWebhooks(stripeWebhookIntake(shop)));
if (paymeKey) {
  const noRefund = env.STORM_EXAMPLE_BROKEN === 'payme-no-refund';
  app.use('/payme', expressPayme(paymeMerchant(shop, paymeKey, noRefund)));
}
if (clickServiceId > 0 && clickSecretKey !== '') {
  const paidOnPrepare = env.STORM_EXAMPLE_BROKEN === 'click-paid-on-prepare';
  const click = clickMerchant(shop, { serviceId: clickServiceId, secretKey: clickSecretKey }, paidOnPrepare);
  app.use(['/click/prepare', '/click/complete'], expressClick(click));
}
if (uzum.login !== '' && uzum.password !== '' && uzum.serviceId > 0) {
  const ignoreRefunds = env.STORM_EXAMPLE_BROKEN === 'uzum-no-refund';
  app.use('/uzum', expressUzum(uzumMerchant(shop, uzum, ignoreRefunds)));
}
const stars =
  telegramBot.token !== '' && telegramBot.webhookSecret !== ''
    ? telegramShop(shop, telegramBot, env.STORM_EXAMPLE_BROKEN === 'telegram-no-receipt')
    : null;
if (stars !== null) app.use(stars.webhook);
app.use(express.json({ verify: keepRawBody }));
if (stars !== null) app.use(stars.routes);
app.use(
  orderRoutes(
    shop,
    stars === null ? {} : { telegram: (id, shipped) => telegramOrderView(stars.payments, id, shipped) },
  ),
);

const worker = fulfilmentWorker(shop, env.STORM_EXAMPLE_BROKEN === 'telegram-no-receipt', stars?.jobHandlers);
worker.start();
const server = app.listen(Number(env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`shop listening on port ${env.PORT ?? 3000}${broken ? ' (BROKEN: webhook without receipt)' : ''}`);
});

process.once('SIGTERM', async () => {
  server.close();
  server.closeAllConnections();
  await worker.stop();
  await store.close();
  await pool.end();
});
