import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TelegramUpdate } from '../../../packages/payonce/src/providers/telegram/telegram-update.js';

/** One `getUpdates` call as the fake saw it. */
export interface GetUpdatesCall {
  readonly offset: number | undefined;
  readonly served: readonly number[];
}

/**
 * A tiny in-process Bot API serving `POST /bot<token>/getUpdates` from a queue, with offsets as Telegram applies them
 * (every update below `offset` is confirmed and forgotten; without one, the earliest unconfirmed come first),
 * long polling (`timeout` seconds, woken by `push`), 409 to the older of two concurrent calls, and injected failures.
 * @see fixtures/providers/telegram/protocol.json "getUpdates", "getUpdates_conflict", "response".
 */
export class FakeBotApi {
  readonly token = '123456:TEST-placeholder-token';
  readonly calls: GetUpdatesCall[] = [];
  /** Calls of every other method (`answerPreCheckoutQuery`, `sendInvoice`, `refundStarPayment`, …), in order. */
  readonly methodCalls: { readonly method: string; readonly params: Record<string, unknown> }[] = [];
  #methodFailures = new Map<string, { status: number; description: string }[]>();
  conflicts = 0;
  #queue: TelegramUpdate[] = [];
  #failures: { status: number; body: unknown }[] = [];
  #waiting: { wake: () => void; res: ServerResponse } | null = null;
  #server: Server;
  url = '';

  private constructor() {
    this.#server = createServer((req, res) => void this.#serve(req, res));
  }

  static async start(): Promise<FakeBotApi> {
    const api = new FakeBotApi();
    api.#server.listen(0, '127.0.0.1');
    await once(api.#server, 'listening');
    api.url = `http://127.0.0.1:${(api.#server.address() as AddressInfo).port}`;
    return api;
  }

  /** Queues updates (a copy of one already queued is a duplicate Telegram serves twice). */
  push(...updates: TelegramUpdate[]): void {
    this.#queue.push(...updates);
    this.#waiting?.wake();
  }

  /** The next call is answered `status` with `{ ok: false, error_code, description, parameters }`. */
  failNext(status: number, parameters?: Record<string, unknown>): void {
    const description = status === 429 ? 'Too Many Requests: retry after 1' : `Error ${status}`;
    this.#failures.push({ status, body: { ok: false, error_code: status, description, parameters } });
  }

  /** The next call of `method` (not getUpdates) is answered `{ ok: false, error_code: status, description }`. */
  failMethod(method: string, status: number, description: string): void {
    this.#methodFailures.set(method, [...(this.#methodFailures.get(method) ?? []), { status, description }]);
  }

  /** The parameters of every call of `method` so far. */
  paramsOf(method: string): Record<string, unknown>[] {
    return this.methodCalls.filter((c) => c.method === method).map((c) => c.params);
  }

  /** Ids still unconfirmed (served again by the next call without a higher offset). */
  pending(): number[] {
    return this.#queue.map((u) => u.update_id);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #method(res: ServerResponse, method: string, body: string): void {
    const params = JSON.parse(body || '{}') as Record<string, unknown>;
    this.methodCalls.push({ method, params });
    const failure = this.#methodFailures.get(method)?.shift();
    if (failure) {
      const { status, description } = failure;
      send(res, status, { ok: false, error_code: status, description });
      return;
    }
    send(res, 200, { ok: true, result: resultOf(method, params) });
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const prefix = `/bot${this.token}/`;
    if (!req.url?.startsWith(prefix)) return send(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const method = req.url.slice(prefix.length);
    if (method !== 'getUpdates') return this.#method(res, method, Buffer.concat(chunks).toString('utf8'));
    const params = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
      offset?: number;
      limit?: number;
      timeout?: number;
    };
    const failure = this.#failures.shift();
    if (failure) return send(res, failure.status, failure.body);
    if (this.#waiting) {
      this.conflicts += 1;
      const older = this.#waiting;
      this.#waiting = null;
      send(older.res, 409, {
        ok: false,
        error_code: 409,
        description:
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      });
      older.wake();
    }
    if (params.offset !== undefined) this.#queue = this.#queue.filter((u) => u.update_id >= (params.offset as number));
    if (this.#queue.length === 0 && (params.timeout ?? 0) > 0) {
      let gone = false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(wake, (params.timeout ?? 0) * 1000);
        function wake() {
          clearTimeout(timer);
          resolve();
        }
        this.#waiting = { wake, res };
        res.once('close', () => {
          gone = true; // the client went away (an aborted long poll): Telegram would not count it
          wake();
        });
      });
      // Read through its declared type: TypeScript does not see the callback above assign it.
      const waiting = this.#waiting as { res: ServerResponse } | null;
      if (waiting?.res === res) this.#waiting = null;
      if (gone || res.writableEnded || res.destroyed) return;
    }
    const served = [...this.#queue].sort((a, b) => a.update_id - b.update_id).slice(0, params.limit ?? 100);
    this.calls.push({ offset: params.offset, served: served.map((u) => u.update_id) });
    send(res, 200, { ok: true, result: served });
  }
}

/** The result a Bot API method answers in this fake (Telegram's result types: Message, String, True). */
function resultOf(method: string, params: Record<string, unknown>): unknown {
  if (method === 'sendInvoice') {
    const { title, description, currency, prices } = params as {
      title: string;
      description: string;
      currency: string;
      prices: { amount: number }[];
    };
    const total_amount = prices.reduce((sum, p) => sum + p.amount, 0);
    const chat = { id: params.chat_id, type: 'private' };
    return {
      message_id: nextId++,
      date: 1_767_225_600,
      chat,
      invoice: { title, description, start_parameter: '', currency, total_amount },
    };
  }
  if (method === 'createInvoiceLink') return `https://t.me/$placeholder-invoice-${nextId++}`;
  return true;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

let nextId = 100_000;

/** A placeholder text message update in chat `chat` (no real person). */
export function messageUpdate(chat = 700_000_001, updateId = nextId++): TelegramUpdate {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      from: { id: chat, is_bot: false, first_name: 'Placeholder' },
      chat: { id: chat, type: 'private', first_name: 'Placeholder' },
      date: 1_767_225_600,
      text: `update ${updateId}`,
    },
  };
}

/** `count` consecutive message updates starting at a fresh id. */
export function messageUpdates(count: number, chat = 700_000_001): TelegramUpdate[] {
  const first = nextId;
  nextId += count + 10;
  return Array.from({ length: count }, (_, i) => messageUpdate(chat, first + i));
}
