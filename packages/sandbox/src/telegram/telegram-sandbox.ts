import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkAllowedHosts } from '../wire/control-guard.js';
import { type CustomerPayOptions, type CustomerPayResult, customerPays } from './telegram-customer.js';
import type { TelegramFaults } from './telegram-faults.js';
import type { SandboxInvoice } from './telegram-invoices.js';
import { TelegramLedger } from './telegram-ledger.js';
import { SANDBOX_METHODS, TelegramBotError } from './telegram-methods.js';
import { refusedBrowserRequest } from './telegram-request-guard.js';
import type { SentMessage, TelegramSandboxState } from './telegram-state.js';
import { TelegramUpdateFeed, type WebhookDeliveryRecord } from './telegram-update-feed.js';

/** Options of {@link createTelegramSandbox}. */
export interface TelegramSandboxOptions {
  /** The one bot token the sandbox accepts (`<bot id>:<secret>`). @default '123456:SANDBOX-placeholder-token' */
  readonly token?: string;
  /** Port to listen on (0: any free one). @default 0 */
  readonly port?: number;
  /** Host to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /**
   * Host names answered besides loopback (`127.0.0.1`, `localhost`, `::1`), e.g. a container's name; bare names
   * without port or scheme. Requests naming another `Host`, or made by a web page of another origin, are 403.
   * @default []
   */
  readonly allowedHosts?: readonly string[];
  /** Faults to inject (mutable later through `sandbox.faults`). */
  readonly faults?: TelegramFaults;
  /** Pause before a webhook redelivery, ms. @default 200 */
  readonly webhookRetryDelayMs?: number;
  /** Webhook deliveries of one update before giving up. @default 10 */
  readonly webhookMaxAttempts?: number;
}

/** A running Telegram sandbox. */
export interface TelegramSandbox {
  /** The Bot API root to give a client (`https://api.telegram.org` replaced): `http://host:port`. */
  readonly url: string;
  readonly token: string;
  /** The faults in force; change them between payments. */
  readonly faults: TelegramFaults;
  readonly ledger: TelegramLedger;
  /** Every invoice the bot sent or linked, by ref. */
  invoices(): SandboxInvoice[];
  /** Messages the bot sent with `sendMessage`. */
  messages(): readonly SentMessage[];
  /** Webhook POSTs made so far. */
  deliveries(): readonly WebhookDeliveryRecord[];
  /** The simulated customer pays an invoice (see `customerPays`). */
  pay(options?: CustomerPayOptions): Promise<CustomerPayResult>;
  /** Queues an update of `kind` (`message`, `callback_query`, …) as if a user did something; its `update_id`. */
  pushUpdate(kind: string, object: unknown): number;
  /** Resolves once queued webhook deliveries are done. */
  webhookIdle(): Promise<void>;
  close(): Promise<void>;
}

type Params = Record<string, unknown>;

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const refuse = (res: ServerResponse, code: number, description: string) =>
  send(res, code, { ok: false, error_code: code, description });

/**
 * The one update field of a `POST /sandbox/update` body (`{ "message": { … } }`: an Update without its `update_id`,
 * which the sandbox assigns).
 * @throws {TelegramBotError} 400 when the body has no field, more than one, an `update_id`, or a field that is not an
 *   object.
 */
function updateOf(params: Params): [string, unknown] {
  const bad = (what: string) => new TelegramBotError(400, `Bad Request: ${what}`);
  const fields = typeof params === 'object' && params !== null && !Array.isArray(params) ? Object.entries(params) : [];
  const [entry] = fields;
  if (fields.length !== 1 || entry === undefined || entry[0] === 'update_id') {
    throw bad('the body must be an Update without update_id: one field naming its kind, e.g. {"message": {…}}');
  }
  const [kind, object] = entry;
  if (typeof object !== 'object' || object === null || Array.isArray(object) || !/^[a-z_]{1,64}$/.test(kind)) {
    throw bad(`${kind.slice(0, 64)} must be an object under a snake_case kind, as in an Update`);
  }
  return [kind, object];
}

/** Parameters from a JSON body, an urlencoded body or the query string (values that are JSON are parsed). */
async function paramsOf(req: IncomingMessage, url: URL): Promise<Params> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json') && body !== '') {
    return JSON.parse(body) as Params;
  }
  const params: Params = {};
  const form = new URLSearchParams(body !== '' ? body : url.search);
  for (const [name, value] of form) {
    try {
      params[name] = JSON.parse(value);
    } catch {
      params[name] = value;
    }
  }
  return params;
}

/**
 * Starts a fake Telegram Bot API over HTTP for tests and `payonce sandbox telegram`: `POST|GET /bot<token>/<method>`
 * with JSON, urlencoded or query parameters, answered `{ ok: true, result }` or `{ ok: false, error_code,
 * description }` as Telegram does; a wrong token is 401, an unknown method 404. `getUpdates` long-polls with offsets
 * (409 while a webhook is set, and to the older of two concurrent calls); `setWebhook`/`deleteWebhook` switch to
 * webhook delivery with redelivery on non-2xx; payments through `sendInvoice`/`createInvoiceLink`, a simulated
 * customer (`pay`), `answerPreCheckoutQuery` within the deadline, `refundStarPayment`; a ledger of what moved.
 * Control routes: `POST /sandbox/pay` (the customer pays; 409 before any invoice), `POST /sandbox/update` (an update
 * of the caller's JSON, through the faults in force), `GET /sandbox/ledger`, `GET /sandbox/invoices`.
 * Unmodified clients (grammY with `client: { apiRoot: sandbox.url }`) work for these methods. A request a web page of
 * another origin makes (`Origin`, `Sec-Fetch-Site`, a rebound `Host`) is 403, a non-JSON control POST 415.
 * @throws {InvalidOption} a bad `allowedHosts` entry. @throws {Error} a token that is not `<bot id>:<secret>`.
 * @see docs/sandbox.md "Telegram sandbox"; https://core.telegram.org/bots/api; fixtures/providers/telegram/protocol.json.
 */
export async function createTelegramSandbox(options: TelegramSandboxOptions = {}): Promise<TelegramSandbox> {
  const token = options.token ?? '123456:SANDBOX-placeholder-token';
  const botId = Number(token.split(':', 1)[0]);
  if (!Number.isSafeInteger(botId) || botId <= 0 || !token.includes(':'))
    throw new Error('token must be "<bot id>:<secret>"');
  const allowedHosts = checkAllowedHosts(options.allowedHosts);
  const faults: TelegramFaults = { ...options.faults };
  const ledger = new TelegramLedger();
  const feed = new TelegramUpdateFeed({
    faults,
    ledger,
    webhookRetryDelayMs: options.webhookRetryDelayMs,
    webhookMaxAttempts: options.webhookMaxAttempts,
  });
  const state: TelegramSandboxState = {
    botId,
    username: 'payonce_sandbox_bot',
    faults,
    ledger,
    feed,
    invoices: new Map(),
    preCheckouts: new Map(),
    messages: [],
    counter: 1,
  };
  let polling: ServerResponse | null = null;

  async function getUpdates(req: IncomingMessage, res: ServerResponse, params: Params) {
    if (feed.webhook !== null) {
      return refuse(
        res,
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    }
    if (polling !== null) {
      refuse(
        polling,
        409,
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      );
    }
    polling = res;
    const gone = new Promise<void>((resolve) => res.once('close', () => resolve()));
    const offset = typeof params.offset === 'number' ? params.offset : undefined;
    const limit = typeof params.limit === 'number' ? Math.min(Math.max(params.limit, 1), 100) : 100;
    const timeout = typeof params.timeout === 'number' ? Math.max(params.timeout, 0) : 0;
    const batch = await feed.next(offset, limit, timeout, gone);
    if (polling === res) polling = null;
    if ((faults.loseGetUpdates ?? 0) > 0 && batch.length > 0) {
      faults.loseGetUpdates = (faults.loseGetUpdates ?? 1) - 1;
      ledger.note('lose-get-updates', `answer with ${batch.map((u) => u.update_id).join(',')} cut`);
      req.socket.destroy();
      return;
    }
    send(res, 200, { ok: true, result: batch });
  }

  async function control(res: ServerResponse, path: string, params: Params) {
    if (path === '/sandbox/pay') return send(res, 200, await customerPays(state, params as CustomerPayOptions));
    if (path === '/sandbox/update') {
      const [kind, object] = updateOf(params);
      return send(res, 200, { update_id: feed.push(kind, object) });
    }
    if (path === '/sandbox/ledger') return send(res, 200, ledger.snapshot());
    if (path === '/sandbox/invoices') return send(res, 200, [...state.invoices.values()]);
    return refuse(res, 404, 'Not Found');
  }

  async function serve(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const refused = refusedBrowserRequest(req.method ?? 'GET', url.pathname, req.headers, allowedHosts);
    if (refused !== null) {
      req.resume();
      return refuse(res, refused.startsWith('Unsupported') ? 415 : 403, refused);
    }
    try {
      const params = await paramsOf(req, url);
      if (url.pathname.startsWith('/sandbox/')) return await control(res, url.pathname, params);
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
      if (match === null) return refuse(res, 404, 'Not Found');
      if (match[1] !== token) return refuse(res, 401, 'Unauthorized');
      const method = match[2] as string;
      if (method === 'getUpdates') return await getUpdates(req, res, params);
      const run = SANDBOX_METHODS[method];
      if (run === undefined) return refuse(res, 404, 'Not Found');
      send(res, 200, { ok: true, result: run(state, params) });
    } catch (error) {
      if (error instanceof TelegramBotError) return refuse(res, error.errorCode, error.description);
      if (error instanceof SyntaxError) return refuse(res, 400, 'Bad Request: the body is not JSON');
      refuse(res, 500, `Internal Server Error: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const server: Server = createServer((req, res) => void serve(req, res));
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    token,
    faults,
    ledger,
    invoices: () => [...state.invoices.values()],
    messages: () => [...state.messages],
    deliveries: () => [...feed.deliveries],
    pay: (payOptions) => customerPays(state, payOptions),
    pushUpdate: (kind, object) => feed.push(kind, object),
    webhookIdle: () => feed.idle(),
    close: async () => {
      feed.deleteWebhook(false);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
