/**
 * The Payme Merchant API endpoint of an app under `payonce storm --adapter … --provider payme`: the storm plays
 * Payme against it (docs/storm-your-app.md "Payme"). Orders are created through the adapter's `createOrder` (in
 * UZS, tiyin) and named in Payme's `account` as `{ [accountField]: orderId }`.
 */
export interface StormAppPayme {
  /** The absolute URL Payme calls (`POST`, JSON-RPC), e.g. `http://127.0.0.1:3000/payme`. */
  readonly merchantUrl: string;
  /** The `account` field naming the order, as the app's cashbox is configured. @default 'order_id' */
  readonly accountField?: string;
}

/**
 * The Click SHOP API endpoints of an app under `payonce storm --adapter … --provider click`: the storm plays Click
 * against them, signing with the service id and SECRET_KEY it gave the app (docs/storm-your-app.md). Orders are
 * created through the adapter's `createOrder` (in UZS, tiyin), the order id being Click's `merchant_trans_id`.
 */
export interface StormAppClick {
  /** The absolute Prepare URL (`action=0`), e.g. `http://127.0.0.1:3000/click/prepare`. */
  readonly prepareUrl: string;
  /** The absolute Complete URL (`action=1`). */
  readonly completeUrl: string;
}

/**
 * The Uzum Bank Merchant API of an app under `payonce storm --adapter … --provider uzum`: the storm plays Uzum Bank
 * against `<merchantUrl>/check`, `/create`, `/confirm`, `/reverse`, `/status` with the Basic credentials and service id
 * it gave the app. Orders are created through the adapter's `createOrder` (UZS, tiyin) and named in `params` as
 * `{ [orderParam]: orderId }`.
 */
export interface StormAppUzum {
  /** The absolute webhook base URL, e.g. `http://127.0.0.1:3000/uzum`. */
  readonly merchantUrl: string;
  /** The `params` field naming the order. @default 'account' */
  readonly orderParam?: string;
}

/**
 * The Telegram bot of an app under `payonce storm --adapter … --provider telegram`: the storm plays Telegram (its
 * Telegram sandbox is the Bot API the app was given, `PAYONCE_STORM_TELEGRAM_API_URL`) and POSTs the bot's updates to
 * `webhookUrl` with the webhook secret it gave the app, with faults. Orders are created through the adapter's
 * `createOrder` in `XTR` (whole stars) and read through its `readOrder`; the invoice payload must be the order id.
 * The app must not call `setWebhook` under the storm: the storm takes the updates from the sandbox and delivers them.
 */
export interface StormAppTelegram {
  /** The absolute URL of the bot's webhook, e.g. `http://127.0.0.1:3000/webhooks/telegram`. */
  readonly webhookUrl: string;
  /**
   * Has the app send the order's invoice to the chat `chatId` through the Bot API (`sendInvoice`, its payload the
   * order id), as `customer`. @throws {Error} the app did not send it (the scenario fails with the message).
   */
  sendInvoice(call: { readonly customer: string; readonly orderId: string; readonly chatId: number }): Promise<void>;
  /**
   * Asks the app to refund the order's Stars charge `chargeId` paid by `userId` (`refundStarPayment`, once however
   * often it is asked); resolves with the app's HTTP status. Absent: the refund scenario is skipped with the reason.
   */
  requestRefund?(call: {
    readonly customer: string;
    readonly orderId: string;
    readonly userId: number;
    readonly chargeId: string;
  }): Promise<{ readonly status: number }>;
}

/**
 * The providers besides Stripe an app takes, for the provider storms against it (`--provider payme`, `click`, `uzum`,
 * `telegram`); a provider the adapter leaves out has its scenarios skipped with the reason, never passed.
 */
export interface StormAppProviders {
  readonly payme?: StormAppPayme;
  readonly click?: StormAppClick;
  readonly uzum?: StormAppUzum;
  readonly telegram?: StormAppTelegram;
}

/**
 * What `payonce storm --adapter … --provider telegram` gives the app (in the environment) and the adapter factory
 * (`setup.providers.telegram`): the storm's Telegram sandbox and the bot it accepts.
 */
export interface StormTelegramSecrets {
  /** The Bot API root of the storm's Telegram sandbox (`https://api.telegram.org` replaced); env `PAYONCE_STORM_TELEGRAM_API_URL`. */
  readonly apiUrl: string;
  /** The one bot token the sandbox accepts (`<bot id>:<secret>`); env `PAYONCE_STORM_TELEGRAM_BOT_TOKEN`. */
  readonly botToken: string;
  /** The `secret_token` the storm sends in `X-Telegram-Bot-Api-Secret-Token`; env `PAYONCE_STORM_TELEGRAM_WEBHOOK_SECRET`. */
  readonly webhookSecret: string;
}

/**
 * The provider secrets `payonce storm --adapter` makes for a run and gives the app (in the environment) and the
 * adapter factory (`setup.providers`): what the app must accept from the storm's provider.
 */
export interface StormProviderSecrets {
  /** The Payme cashbox key the storm signs its calls with (`Authorization: Basic Paycom:<key>`); env `PAYONCE_STORM_PAYME_KEY`. */
  readonly paymeKey: string;
  /** The Click `service_id` of the storm's calls; env `PAYONCE_STORM_CLICK_SERVICE_ID`. */
  readonly clickServiceId: number;
  /** The Click SECRET_KEY the storm signs with (`sign_string`); env `PAYONCE_STORM_CLICK_SECRET_KEY`. */
  readonly clickSecretKey: string;
  /** The Uzum Basic login; env `PAYONCE_STORM_UZUM_LOGIN`. */
  readonly uzumLogin: string;
  /** The Uzum Basic password; env `PAYONCE_STORM_UZUM_PASSWORD`. */
  readonly uzumPassword: string;
  /** The Uzum `serviceId`; env `PAYONCE_STORM_UZUM_SERVICE_ID`. */
  readonly uzumServiceId: number;
  /** The Telegram sandbox and bot of a `--provider telegram` run; absent in any other run. */
  readonly telegram?: StormTelegramSecrets;
}
