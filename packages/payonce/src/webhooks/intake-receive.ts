import { performance } from 'node:perf_hooks';
import { PayonceError } from '../core/errors.js';
import { storeError } from '../core/guard-failures.js';
import { epochMs, fingerprintOf } from '../core/guard-input.js';
import type { ClaimContext } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import { type ResponseInit, toStoredResponse } from '../core/response.js';
import type { InsertClaimRequest } from '../core/store.js';
import { TransactionFence } from '../core/transaction-fence.js';
import type { HttpResponse } from '../http/http-exchange.js';
import { PAYONCE_ATTRIBUTES as A, type IdempotencyOutcome } from '../otel/attributes.js';
import { countOne } from '../otel/meters.js';
import { inSpan, type SpanScope } from '../otel/span-scope.js';
import type { GroupCommit } from '../stores/sql/group-commit.js';
import type { ReadAhead } from '../stores/sql/read-ahead.js';
import { inStackTransaction, runInStackTransaction } from '../stores/sql/stack-one-commit.js';
import type { IntakeRequest } from './intake-acknowledgement.js';
import { WebhookDecline } from './intake-decline.js';
import { linkToFirstDelivery } from './intake-first-delivery.js';
import { reportHandlerFailure } from './intake-handler-failure.js';
import type { StackWebhookEndpoint, WebhookContext, WebhookEndpoint } from './intake-options.js';
import { type IntakeProblem, intakeProblem, problemOfFailure, signatureProblem } from './intake-problem.js';
import { type DeliveryArrival, recordDelivery, recordOf } from './intake-record.js';
import { type IntakeRuntime, type ResolvedEndpoint, resolveEndpoint } from './intake-runtime.js';
import { errorText, freshTrace, looseParse, refusedTrace, type Trace, tooDeep } from './intake-trace.js';
import type { DeliveryOutcome, DeliveryRecord } from './journal/delivery-record.js';
import { SqlDeliveryJournal } from './journal/sql-delivery-journal.js';
import { checkEventLimits } from './providers/event-limits.js';
import { MalformedWebhookPayload } from './providers/malformed-webhook-payload.js';
import type { ProviderEvent } from './providers/provider-event.js';
import { type HeadersInput, headerValue } from './verify/headers.js';

/** One delivery in the pipeline: the runtime, where and when it arrived, and the request. */
interface Delivery extends DeliveryArrival {
  readonly runtime: IntakeRuntime;
  readonly request: IntakeRequest;
  /** The delivery's span (`payonce.webhook.intake`). */
  readonly span: SpanScope;
}

/** The intake's outcome of a delivery, as `payonce.idempotency.outcome` names it; `null` before any claim. */
const OUTCOMES: Readonly<Partial<Record<Trace['decision'], IdempotencyOutcome>>> = Object.freeze({
  new: 'fresh',
  duplicate: 'replay',
  'in-progress': 'conflict',
});

/**
 * Step 7: journal the delivery and answer (span `payonce.webhook.acknowledge`); `written`: its journal row was
 * already written in the delivery's transaction (group commit).
 */
function answer(
  delivery: Delivery,
  trace: Trace,
  response: HttpResponse,
  written?: DeliveryRecord,
): Promise<HttpResponse> {
  const outcome = OUTCOMES[trace.decision];
  const attributes = { 'http.response.status_code': response.status, 'payonce.webhook.decision': trace.decision };
  return inSpan('payonce.webhook.acknowledge', { attributes }, async () => {
    if (outcome !== undefined) delivery.span.set(A.outcome, outcome);
    if (outcome === 'replay') {
      countOne((all) => all.redeliveries, { [A.provider]: delivery.resolved.endpoint.profile.provider });
    }
    delivery.span.set('http.response.status_code', response.status);
    return await recordDelivery(delivery.runtime, delivery, trace, response, delivery.request, written);
  });
}

function refuse(delivery: Delivery, trace: Trace, problem: IntakeProblem): Promise<HttpResponse> {
  const limited = trace.signature === 'valid' ? null : limitedRefusal(delivery.runtime, delivery, problem);
  if (limited) return Promise.resolve(limited);
  const response = delivery.resolved.ack.problem(problem, delivery.request);
  return answer(delivery, refusedTrace(trace, problem, problem.detail), response);
}

/**
 * For an unauthenticated refusal: the 429 `WEBHOOK_REFUSALS_LIMITED` answer (with `Retry-After`, no journal row,
 * reported as `refusal-limited`) when its client is past `refusalLimit`, else `null` (refuse and journal it).
 */
function limitedRefusal(
  runtime: IntakeRuntime,
  arrival: { resolved: Delivery['resolved']; request: IntakeRequest },
  refusal: IntakeProblem,
): HttpResponse | null {
  const client = arrival.request.client ?? '';
  const waitMs = runtime.refusalLimiter?.take(client) ?? 0;
  if (waitMs === 0) return null;
  const endpoint = arrival.request.endpoint;
  const provider = arrival.resolved.endpoint.profile.provider;
  runtime.emitter.emit('refusal-limited', { endpoint, provider, client, code: refusal.code });
  const detail = 'too many refused deliveries from this client; retry later';
  const problem = intakeProblem('rate_limited', 'WEBHOOK_REFUSALS_LIMITED', detail, { retryAfterMs: waitMs });
  return arrival.resolved.ack.problem(problem, arrival.request);
}

function tooLarge(runtime: IntakeRuntime, bytes: number | null): IntakeProblem {
  const size = bytes === null ? 'the body' : `${bytes} bytes`;
  const detail = `${size} exceeds the limit of ${runtime.maxBodyBytes} bytes`;
  return intakeProblem('too_large', 'WEBHOOK_BODY_TOO_LARGE', detail);
}

/** Step 1: the body is bytes and within the size limit, before anything reads it. */
function checkBody(delivery: Delivery): IntakeProblem | null {
  const { rawBody } = delivery.request;
  if (!(rawBody instanceof Uint8Array)) {
    return intakeProblem('integration_error', 'RAW_BODY_REQUIRED', 'the adapter passed no raw body bytes');
  }
  return rawBody.byteLength > delivery.runtime.maxBodyBytes ? tooLarge(delivery.runtime, rawBody.byteLength) : null;
}

/** Step 2: the signature over the exact bytes; records the verdict in `trace` (and no payload when refused). */
async function verifySignature(delivery: Delivery, trace: Trace): Promise<IntakeProblem | null> {
  return await inSpan('payonce.webhook.verify', undefined, async (span) => {
    const problem = await verifyBytes(delivery, trace);
    span.set('payonce.webhook.signature', trace.signature);
    return problem;
  });
}

async function verifyBytes(delivery: Delivery, trace: Trace): Promise<IntakeProblem | null> {
  const { rawBody, headers } = delivery.request;
  try {
    trace.verify = await delivery.resolved.endpoint.scheme.verify({ rawBody, headers, nowMs: delivery.receivedAtMs });
  } catch (error) {
    const code = error instanceof PayonceError ? error.code : 'INVALID_VERIFY_INPUT';
    return intakeProblem('integration_error', code, errorText(error));
  }
  if (!trace.verify.ok) {
    // Not authentic: journaled without its body (anyone can send one; issue #34 item 7).
    trace.signature = trace.verify.reason;
    return signatureProblem(trace.verify);
  }
  trace.signature = 'valid';
  return null;
}

/**
 * Step 3: parse and extract the event with the endpoint's profile. A body nested deeper than `maxJsonDepth` is
 * never parsed, and an event with a field longer than payonce stores (`EVENT_FIELD_LIMITS`) is refused, both
 * 400 `MALFORMED_WEBHOOK_PAYLOAD` before any write.
 */
function extractEvent(delivery: Delivery, trace: Trace): { event: ProviderEvent } | { problem: IntakeProblem } {
  const { rawBody, headers } = delivery.request;
  const { maxJsonDepth } = delivery.runtime;
  try {
    const { profile } = delivery.resolved.endpoint;
    if (tooDeep(rawBody, maxJsonDepth)) {
      throw new MalformedWebhookPayload(profile.provider, 'body', `nests deeper than ${maxJsonDepth} levels`);
    }
    const event = profile.extract({ rawBody, headers });
    checkEventLimits(event);
    return { event };
  } catch (error) {
    trace.payload = looseParse(rawBody, headers, maxJsonDepth);
    if (error instanceof MalformedWebhookPayload) {
      const field = error.path.split(' ')[0];
      return { problem: intakeProblem('malformed_payload', error.code, error.message, { field }) };
    }
    const code = error instanceof PayonceError ? error.code : 'MALFORMED_WEBHOOK_PAYLOAD';
    return { problem: intakeProblem('malformed_payload', code, errorText(error)) };
  }
}

/** The trace of a delivery whose claim or handler threw. */
function failedTrace(trace: Trace, problem: IntakeProblem, error: unknown, handlerRan: boolean): Trace {
  if (problem.kind === 'in_progress') {
    return { ...trace, decision: 'in-progress', outcome: 'deferred', error: `${problem.code}: ${problem.detail}` };
  }
  if (handlerRan && problem.kind !== 'malformed_payload') {
    return { ...trace, decision: 'new', outcome: 'failed', error: errorText(error) };
  }
  return refusedTrace(trace, problem, errorText(error));
}

/** Runs the endpoint's handler in its mode: plain, in the store's transaction `tx`, or in the stack's `tx`. */
function callHandler(resolved: ResolvedEndpoint, event: ProviderEvent, context: WebhookContext, txs: Txs): unknown {
  const { endpoint } = resolved;
  if (resolved.stack !== null) {
    const stackEndpoint = endpoint as StackWebhookEndpoint<unknown>;
    return stackEndpoint.handler(event, { ...context, tx: txs.tx, payonceTx: txs.payonceTx });
  }
  if (endpoint.transaction === true) return endpoint.handler(event, { ...context, tx: txs.tx });
  return (endpoint as WebhookEndpoint).handler(event, context);
}

/** The transactions a one-commit handler gets: the one it writes through, and payonce's view (stack mode only). */
interface Txs {
  readonly tx?: unknown;
  readonly payonceTx?: unknown;
}

/** Steps 4–6: claim the event key, run the handler, answer with the acknowledgement (or replay the stored one). */
async function handleEvent(delivery: Delivery, trace: Trace, event: ProviderEvent): Promise<HttpResponse> {
  const { endpoint, ack, fingerprint, stack } = delivery.resolved;
  const { request, receivedAtMs } = delivery;
  let handlerRan = false;
  /** What the handler threw last (it runs again when a deadlock retries its transaction). */
  let handlerFailure: { readonly error: unknown } | null = null;
  let outcome: DeliveryOutcome = 'completed';
  const handle = async (claim: ClaimContext | null, txs: Txs = {}): Promise<ResponseInit> => {
    handlerRan = true;
    outcome = 'completed'; // a one-commit transaction retried after a deadlock runs this again
    const context = { claim, headers: request.headers, receivedAtMs };
    // The transaction objects are lent to the handler: once it returns, using them throws `TransactionEnded`.
    const fence = txs.tx === undefined ? null : new TransactionFence();
    if (claim !== null) delivery.span.set(A.redelivery, claim.attempt - 1);
    try {
      const lent = fence === null ? txs : { tx: fence.lend(txs.tx), payonceTx: fence.lend(txs.payonceTx) };
      const attributes = claim === null ? undefined : { [A.attempts]: claim.attempt };
      const result = await inSpan('payonce.webhook.handler', { attributes }, async () =>
        callHandler(delivery.resolved, event, context, lent),
      );
      return ack.accepted(event, result);
    } catch (error) {
      if (!(error instanceof WebhookDecline)) {
        handlerFailure = { error };
        throw error;
      }
      outcome = 'declined';
      return ack.declined(event, error);
    } finally {
      fence?.close();
    }
  };
  const { guard } = delivery.runtime;
  try {
    const key = event.key;
    if (key === null) {
      let response: ResponseInit;
      if (stack !== null)
        response = await inStackTransaction(stack, (tx, payonceTx) => handle(null, { tx, payonceTx }));
      else if (endpoint.transaction === true)
        response = await guard.transactionalStore().transaction((tx) => handle(null, { tx }));
      else response = await handle(null);
      const stored = toStoredResponse(response);
      return answer(delivery, { ...trace, decision: 'new', outcome }, ack.deliver(stored, request));
    }
    const payload = {
      payload: fingerprint === 'raw-body' ? request.rawBody : undefined,
      waitForInFlightMs: delivery.runtime.waitForInFlightMs,
      signal: request.signal,
    };
    // One-commit endpoints: claim, handler and completion in ONE transaction of the stack's or the guard's store.
    let result: Outcome;
    if (stack !== null) {
      result = await runInStackTransaction(
        guard,
        stack,
        key,
        (tx, claim, payonceTx) => handle(claim, { tx, payonceTx }),
        payload,
      );
    } else if (endpoint.transaction === true && delivery.runtime.groupCommit !== null) {
      // The fingerprint once: the guard's claim and the batch's claim made together (`GroupCommit.run`) carry it.
      const claimFingerprint = fingerprintOf({ payload: payload.payload });
      const options = { fingerprint: claimFingerprint ?? undefined, signal: payload.signal, waitForInFlightMs: 0 };
      const grouped = (tx: unknown) => {
        handlerRan = false; // a batch run again (another delivery failed) starts this one over: it may be a replay now
        return guard.runInTransaction(tx as never, key, (inTx, claim) => handle(claim, { tx: inTx }), options);
      };
      const claim = { key, nowMs: epochMs(delivery.runtime.clock.now()), fingerprint: claimFingerprint };
      const answered = await answerGrouped(
        delivery,
        delivery.runtime.groupCommit,
        trace,
        grouped,
        () => outcome,
        claim,
        readAheadOf(endpoint, event),
      );
      await linkToFirstDelivery(guard.store, key, delivery.span, handlerRan);
      return answered;
    } else if (endpoint.transaction === true) {
      result = await guard.runInNewTransaction(key, (tx, claim) => handle(claim, { tx }), payload);
    } else result = await guard.run(key, (claim) => handle(claim), payload);
    await linkToFirstDelivery(guard.store, key, delivery.span, handlerRan);
    return answer(delivery, decidedTrace(trace, result, outcome), ack.deliver(result.response, request));
  } catch (error) {
    // Set in `handle`, which TypeScript does not see run: read through its declared type.
    const failed = handlerFailure as { readonly error: unknown } | null;
    if (event.key !== null) await linkToFirstDelivery(guard.store, event.key, delivery.span, handlerRan);
    if (failed !== null && failed.error === error) {
      const where = { endpoint: request.endpoint, provider: endpoint.profile.provider };
      reportHandlerFailure(delivery.runtime, where, event, error);
    }
    const problem = problemOfFailure(error);
    return answer(delivery, failedTrace(trace, problem, error, handlerRan), ack.problem(problem, request));
  }
}

/** The trace of a delivery the guard answered with `result`; `outcome` is the handler's when it ran. */
function decidedTrace(trace: Trace, result: Outcome, outcome: DeliveryOutcome): Trace {
  return result.isReplay
    ? { ...trace, decision: 'duplicate', outcome: 'replayed' }
    : { ...trace, decision: 'new', outcome };
}

/**
 * Steps 4–7 of a one-commit endpoint under group commit: `claimAndHandle` (claim, handler, completion) and the
 * delivery's journal row run in the delivery's savepoint of a transaction shared with concurrent deliveries (its
 * receipt `claim` made with theirs in one statement where the store can, `GroupCommit.run`); the
 * answer is given after that transaction committed. A journal that cannot write in the store's transactions (not a
 * SQL journal of the guard's store) gets its row after the commit, as in the other modes. A failure (the handler's,
 * the claim's, the journal row's, the commit's) is answered by the caller's error path, outside the transaction.
 */
async function answerGrouped(
  delivery: Delivery,
  group: GroupCommit<unknown>,
  trace: Trace,
  claimAndHandle: (tx: unknown) => Promise<Outcome>,
  outcomeOf: () => DeliveryOutcome,
  claim: InsertClaimRequest,
  ahead: ReadAhead<unknown> | undefined,
): Promise<HttpResponse> {
  const { runtime, request } = delivery;
  const { ack } = delivery.resolved;
  const journal = runtime.journal;
  const inTransaction =
    journal instanceof SqlDeliveryJournal && journal.writesTo((runtime.guard.store as { db?: unknown }).db)
      ? journal
      : null;
  const done = await group.run(
    async (tx) => {
      const result = await claimAndHandle(tx);
      const decided = decidedTrace(trace, result, outcomeOf());
      const response = ack.deliver(result.response, request);
      if (inTransaction === null) return { decided, response, record: undefined };
      const record = recordOf(runtime, delivery, decided, response);
      try {
        await inTransaction.recordIn(tx, record);
      } catch (error) {
        throw storeError('journal', error);
      }
      return { decided, response, record };
    },
    claim,
    ahead,
  );
  return answer(delivery, done.decided, done.response, done.record);
}

/** What a one-commit endpoint's `prepareBatch` reads ahead for `event` in its group-commit batch, if it has one. */
function readAheadOf(endpoint: ResolvedEndpoint['endpoint'], event: ProviderEvent): ReadAhead<unknown> | undefined {
  if (endpoint.transaction !== true || endpoint.prepareBatch === undefined) return undefined;
  const read = (tx: unknown, events: readonly unknown[]) => endpoint.prepareBatch!(tx, events as ProviderEvent[]);
  return { group: endpoint, read, item: event };
}

/** `WebhookIntake.receive`: runs one delivery through the pipeline. @throws {InvalidOption} unknown endpoint. */
export async function receiveDelivery(runtime: IntakeRuntime, request: IntakeRequest): Promise<HttpResponse> {
  const started = performance.now();
  const resolved = resolveEndpoint(runtime, request.endpoint);
  const provider = resolved.endpoint.profile.provider;
  const attributes = { 'payonce.webhook.endpoint': request.endpoint, [A.provider]: provider };
  return await inSpan('payonce.webhook.intake', { kind: 'server', attributes }, async (span) => {
    const delivery: Delivery = { runtime, request, resolved, receivedAtMs: runtime.clock.now(), started, span };
    const trace = freshTrace();
    const refusal = checkBody(delivery) ?? (await verifySignature(delivery, trace));
    if (refusal) return refuse(delivery, trace, refusal);
    const extracted = await inSpan('payonce.webhook.extract', undefined, async (step) => {
      const result = extractEvent(delivery, trace);
      if ('event' in result) step.set('payonce.event.type', result.event.eventType);
      return result;
    });
    if ('problem' in extracted) return refuse(delivery, trace, extracted.problem);
    const { event } = extracted;
    if (event.key !== null) span.set('payonce.event.id', event.key.externalId);
    return handleEvent(delivery, { ...trace, event, payload: event.payload }, event);
  });
}

/**
 * `WebhookIntake.rejectTooLarge`: the 413 answer and journal row (or 429 past the client's `refusalLimit`).
 * @throws {InvalidOption} unknown endpoint.
 */
export async function rejectTooLarge(
  runtime: IntakeRuntime,
  name: string,
  headers: HeadersInput,
  client?: string,
): Promise<HttpResponse> {
  const started = performance.now();
  const resolved = resolveEndpoint(runtime, name);
  const declared = Number(headerValue(headers, 'content-length'));
  const problem = tooLarge(runtime, Number.isSafeInteger(declared) ? declared : null);
  const request: IntakeRequest = { endpoint: name, rawBody: new Uint8Array(0), headers, client };
  const limited = limitedRefusal(runtime, { resolved, request }, problem);
  if (limited) return limited;
  const arrival: DeliveryArrival = { resolved, receivedAtMs: runtime.clock.now(), started };
  const trace = freshTrace(`${problem.code}: ${problem.detail}`);
  return recordDelivery(runtime, arrival, trace, resolved.ack.problem(problem, request), request);
}
