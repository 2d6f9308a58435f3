/**
 * The fastify plugin's state of one covered request while its route runs (`InFlight`), with what it shares with the
 * plugin: where the request keeps it, the one-commit transaction slot, and the hook error helper.
 */
import {
  errorCodes,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RouteHandlerMethod,
} from 'fastify';
import { bufferOf } from '../core/buffer-of.js';
import type { HttpResponse } from './http-exchange.js';
import type { IdempotencyResult, RouteAnswer } from './idempotency-core.js';
import { type StackTransactionBox, TransactionSlot } from './transaction-slot.js';

/** Where a covered request running under the plugin keeps its {@link InFlight}. */
export const IN_FLIGHT = Symbol('payonce.idempotency');
/** A fastify request as the plugin tracks it. */
export type InFlightRequest = FastifyRequest & { [IN_FLIGHT]?: InFlight };

/** The open one-commit transaction of each request in flight (`fastifyTransaction`, `fastifyStackTransaction`). */
export const transactions = new TransactionSlot<FastifyRequest>('fastifyTransaction', 'fastifyStackTransaction');

/** A rejection as a hook's error: a falsy one becomes fastify's own FST_ERR_SEND_UNDEFINED_ERR, as for an async hook. */
export function asError(failure: unknown): Error {
  return failure ? (failure as Error) : new errorCodes.FST_ERR_SEND_UNDEFINED_ERR();
}

/**
 * The headers of `reply` the core will store (`names`, lower case), as strings (several values joined with `, `):
 * read one by one instead of copying every header of the reply, since the core keeps only these.
 */
function storedHeadersOf(reply: FastifyReply, names: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

function replace(reply: FastifyReply, { status, headers, body }: HttpResponse, clear: boolean): Buffer {
  if (clear) for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name);
  reply.code(status).headers(headers);
  return bufferOf(body);
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

export type PreHandlerDone = (error?: Error) => void;
export type OnSendDone = (error: Error | null, payload?: unknown) => void;

/**
 * One covered request from its preHandler to its onSend: the core's decision, the route handler's end and onSend's
 * continuation meet here, in whichever order they come (normally: the handler sends, returns, the core stores the
 * reply onSend handed it, then decides). The reply goes to the core only once the handler has returned too (a
 * handler that sends and goes on writing is waited for); a handler that throws, before or after sending, gets
 * fastify's error handling, whose reply goes to the core flagged `threw`. Its methods are the hooks'
 * continuations, so a request costs this object and one promise, not a set of closures.
 */
export class InFlight {
  /** Resolves the promise the core awaits from `next` with the route's answer; `undefined` once it was called. */
  respond: ((response: RouteAnswer) => void) | undefined = undefined;
  /** True once the core called `next` (the route runs); false when it replays or rejects instead. */
  running = false;
  result: IdempotencyResult | undefined = undefined;
  failure: unknown = undefined;
  failed = false;
  /** onSend's continuation and the payload fastify serialised (sent unchanged when the handler's reply stands). */
  sendDone: OnSendDone | undefined = undefined;
  sent: unknown = undefined;
  /** The reply onSend handed over, waiting for the handler to return. */
  private answer: HttpResponse | undefined = undefined;
  /** The route handler returned (or its promise settled, or it handed fastify its reply to wait for). */
  private returned = false;
  /** The route handler threw or rejected. */
  private threw = false;
  /** The route handler ran through `runHandler` (a route registered before the plugin is not watched). */
  private watched = false;
  /** The reply's headers when the route started (set by earlier hooks), kept when a thrown handler's reply is dropped. */
  private headersBefore: Partial<ReturnType<FastifyReply['getHeaders']>> = {};

  constructor(
    readonly request: InFlightRequest,
    readonly reply: FastifyReply,
    readonly preHandlerDone: PreHandlerDone,
  ) {}

  /** The core's `next`: lets fastify run the route; the promise resolves with the route's answer. */
  run(tx: unknown, stack?: StackTransactionBox): Promise<RouteAnswer> {
    this.running = true;
    const produced = new Promise<RouteAnswer>((respond) => {
      this.respond = respond;
    });
    this.request[IN_FLIGHT] = this;
    this.headersBefore = this.reply.getHeaders();
    this.watchReplyAwaited();
    if (tx !== undefined) transactions.set(this.request, tx, stack);
    this.preHandlerDone(); // this request owns the key (or is not covered): fastify runs the route
    if (tx === undefined) return produced;
    return produced.finally(() => transactions.clear(this.request));
  }

  /**
   * An async handler that ends with `return reply` (or `await reply`) has fastify wait for the reply to be sent,
   * which waits for the core: the handler is taken as returned as soon as the reply is awaited.
   */
  private watchReplyAwaited(): void {
    const { reply } = this;
    const then = reply.then;
    // biome-ignore lint/suspicious/noThenProperty: fastify's reply is a thenable already; this notes when it is awaited.
    reply.then = (fulfilled, rejected) => {
      this.handlerReturned();
      return then.call(reply, fulfilled, rejected);
    };
  }

  /** Runs the route `handler` (fastify's `this` and arguments), noting when it returns or fails. */
  runHandler(handler: RouteHandlerMethod, instance: FastifyInstance, reply: FastifyReply): unknown {
    this.watched = true;
    let result: unknown;
    try {
      result = handler.call(instance, this.request, reply);
    } catch (error) {
      return this.handlerFailed(error);
    }
    if (result === reply || !isThenable(result)) {
      this.handlerReturned();
      return result;
    }
    return Promise.resolve(result).then(
      (value) => {
        this.handlerReturned();
        // Sent, then resolved with nothing: fastify waits for that reply instead of sending `undefined` again.
        return value === undefined && this.answer !== undefined ? reply : value;
      },
      (error: unknown) => this.handlerFailed(error),
    );
  }

  private handlerReturned(): void {
    this.returned = true;
    this.answerIfDone();
  }

  /**
   * The handler threw. Not answered yet: fastify's error handling answers (its reply comes to `deliver`). Answered
   * and held in onSend: that reply is dropped (status and the headers the handler set with it) and the error goes
   * to fastify's error handling from onSend; fastify then waits for the error's reply. Answered and already with the
   * core (the handler awaited its own reply): too late to undo, fastify logs the error once the reply is sent.
   */
  private handlerFailed(error: unknown): unknown {
    if (this.respond === undefined) return this.afterReply(error);
    this.threw = true;
    const done = this.sendDone;
    if (done === undefined) {
      this.answerIfDone();
      return Promise.reject(error);
    }
    this.sendDone = undefined;
    this.sent = undefined;
    this.answer = undefined;
    for (const name of Object.keys(this.reply.getHeaders())) this.reply.removeHeader(name);
    this.reply.headers(this.headersBefore).code(200);
    done(asError(error));
    return this.reply;
  }

  /** Rejects with `error` once the reply is sent (fastify then logs it: the reply stands). */
  private afterReply(error: unknown): Promise<never> {
    return new Promise<never>((_resolve, reject) => {
      this.reply.then(
        () => reject(error),
        () => reject(error),
      );
    });
  }

  /** Hands the answer to the core once both the reply and the handler's end (or failure) are in. */
  private answerIfDone(): void {
    const respond = this.respond;
    if (respond === undefined || this.answer === undefined || !(this.returned || this.threw)) return;
    this.respond = undefined;
    this.request[IN_FLIGHT] = undefined; // any later reply of this request passes through untouched
    respond(this.threw ? { ...this.answer, threw: true } : this.answer);
  }

  decided(result: IdempotencyResult): void {
    if (this.running) {
      this.result = result;
      this.settle();
      return;
    }
    // Replay or problem before the route ran: answer it from preHandler.
    let answer: Buffer;
    try {
      answer = replace(this.reply, result.response, false);
    } catch (error) {
      this.preHandlerDone(asError(error));
      return;
    }
    this.reply.send(answer);
  }

  rejected(failure: unknown): void {
    if (!this.running) {
      this.preHandlerDone(asError(failure));
      return;
    }
    this.failure = failure;
    this.failed = true;
    this.settle();
  }

  /** onSend: keeps the serialised reply for the core; fastify continues once the core decided. */
  deliver(body: Buffer, sent: unknown, storedHeaders: readonly string[], done: OnSendDone): void {
    this.sendDone = done;
    this.sent = sent;
    this.answer = { status: this.reply.statusCode, headers: storedHeadersOf(this.reply, storedHeaders), body };
    if (!this.watched) this.returned = true; // an unwatched handler cannot be waited for: its reply is its end
    this.answerIfDone();
    this.settle();
  }

  private settle(): void {
    const done = this.sendDone;
    if (done === undefined || (this.result === undefined && !this.failed)) return;
    this.sendDone = undefined;
    const result = this.result;
    if (result === undefined) done(asError(this.failure));
    else if (result.kind === 'executed') done(null, this.sent);
    else this.sendInstead(result.response, done);
  }

  /** The replay or problem the core chose in place of the handler's reply (headers the handler set are dropped). */
  private sendInstead(response: HttpResponse, done: OnSendDone): void {
    let payload: Buffer;
    try {
      payload = replace(this.reply, response, true);
    } catch (error) {
      done(asError(error));
      return;
    }
    done(null, payload);
  }
}
