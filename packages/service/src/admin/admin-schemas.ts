/**
 * JSON Schemas of the admin API: they validate the query strings and bodies (fastify's Ajv) and describe every
 * route in the OpenAPI document (`@fastify/swagger`). Responses are documented here and sent pre-serialised.
 */

import { PROVIDER_TRANSACTION_STATES } from './admin-provider-transactions.js';

const page = { type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'rows per page (1–200)' } as const;
const cursor = { type: 'string', maxLength: 2000, description: 'opaque nextCursor of the previous page' } as const;
const epochMs = {
  type: 'integer',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'epoch ms UTC (0 to 2^53 - 1)',
} as const;
const nullableText = { type: 'string', nullable: true } as const;

/** A problem+json answer (RFC 9457) with the stable `code`. */
export const problemSchema = {
  type: 'object',
  description: 'RFC 9457 problem details (application/problem+json), code as in docs/errors.md',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
  },
} as const;

/** A page of a list: `items` and the cursor of the next page (`null` on the last). */
export function pageSchema(item: Record<string, unknown>) {
  return {
    type: 'object',
    properties: { items: { type: 'array', items: item }, nextCursor: { ...nullableText } },
  } as const;
}

/** The errors every admin route can answer. */
export const commonErrors = {
  400: problemSchema,
  401: problemSchema,
  403: problemSchema,
} as const;

/** Querystring schemas by list. */
export const querySchemas = {
  receipts: {
    type: 'object',
    additionalProperties: false,
    properties: {
      status: { type: 'string', enum: ['processing', 'completed', 'failed'] },
      provider: { type: 'string', maxLength: 160 },
      stuck: { type: 'boolean', description: 'only processing receipts older than their stale limit' },
      limit: page,
      cursor,
    },
  },
  deliveries: {
    type: 'object',
    additionalProperties: false,
    properties: {
      provider: { type: 'string', maxLength: 160 },
      decision: { type: 'string', enum: ['new', 'duplicate', 'in-progress', 'rejected'] },
      outcome: { type: 'string', enum: ['completed', 'declined', 'replayed', 'deferred', 'failed', 'rejected'] },
      eventType: { type: 'string', maxLength: 160 },
      eventKey: { type: 'string', maxLength: 160 },
      fromMs: epochMs,
      toMs: epochMs,
      limit: page,
      cursor,
    },
  },
  jobs: {
    type: 'object',
    additionalProperties: false,
    properties: {
      status: { type: 'string', enum: ['queued', 'running', 'done', 'dead'] },
      topic: { type: 'string', maxLength: 160 },
      limit: page,
      cursor,
    },
  },
  attempts: {
    type: 'object',
    additionalProperties: false,
    properties: {
      status: {
        type: 'string',
        enum: ['creating', 'pending', 'requires_action', 'succeeded', 'failed', 'cancelled', 'unknown', 'unresolved'],
      },
      orderId: { type: 'string', maxLength: 64 },
      limit: page,
      cursor,
    },
  },
  orders: {
    type: 'object',
    additionalProperties: false,
    properties: {
      status: {
        type: 'string',
        enum: ['draft', 'awaiting_payment', 'paid', 'fulfilling', 'completed', 'cancelled', 'refunded'],
      },
      limit: page,
      cursor,
    },
  },
  actions: {
    type: 'object',
    additionalProperties: false,
    properties: {
      orderId: { type: 'string', maxLength: 64 },
      action: { type: 'string', maxLength: 40 },
      limit: page,
      cursor,
    },
  },
  providerTransactions: {
    type: 'object',
    additionalProperties: false,
    properties: {
      provider: {
        type: 'string',
        enum: Object.keys(PROVIDER_TRANSACTION_STATES),
        default: 'payme',
        description: 'whose transactions (one engine per page)',
      },
      state: {
        type: 'string',
        enum: Object.values(PROVIDER_TRANSACTION_STATES).flat(),
        description: 'payme: 1, 2, -1, -2; click: prepared, completed, cancelled; uzum: CREATED, CONFIRMED, REVERSED',
      },
      orderId: { type: 'string', maxLength: 64 },
      limit: page,
      cursor,
    },
  },
  paymeStatement: {
    type: 'object',
    additionalProperties: false,
    required: ['fromMs', 'toMs'],
    properties: {
      fromMs: { ...epochMs, description: 'Payme time from (inclusive), epoch ms UTC' },
      toMs: { ...epochMs, description: 'Payme time to (inclusive), epoch ms UTC' },
    },
  },
} as const;

/** Item schemas of the lists (documentation). */
export const itemSchemas = {
  receipt: {
    type: 'object',
    properties: {
      provider: { type: 'string' },
      externalId: { type: 'string' },
      status: { type: 'string', enum: ['processing', 'completed', 'failed'] },
      attempts: { type: 'integer', description: 'claims so far; the fencing token a release names' },
      claimedAtMs: epochMs,
      finishedAtMs: { ...epochMs, nullable: true },
      staleAfterMs: { type: 'integer' },
      stuck: { type: 'boolean' },
      responseStatus: { type: 'integer', nullable: true },
      error: nullableText,
    },
  },
  delivery: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      receivedAtMs: epochMs,
      provider: { type: 'string' },
      eventKey: nullableText,
      eventType: nullableText,
      signature: { type: 'string' },
      decision: { type: 'string' },
      outcome: { type: 'string' },
      responseStatus: { type: 'integer' },
      error: nullableText,
      durationMs: { type: 'integer' },
      paymentId: nullableText,
      merchantReference: nullableText,
      amountMinor: { type: 'integer', nullable: true, description: 'minor units' },
      currency: nullableText,
    },
  },
  job: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      topic: { type: 'string' },
      dedupeKey: { type: 'string' },
      status: { type: 'string', enum: ['queued', 'running', 'done', 'dead'] },
      attempts: { type: 'integer' },
      lastError: nullableText,
      createdAtMs: epochMs,
      availableAtMs: epochMs,
      finishedAtMs: { ...epochMs, nullable: true },
    },
  },
  attempt: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      orderId: { type: 'string' },
      provider: { type: 'string' },
      status: { type: 'string' },
      amountMinor: { type: 'integer' },
      currency: { type: 'string' },
      providerPaymentId: nullableText,
      lastError: nullableText,
      createdAtMs: epochMs,
      updatedAtMs: epochMs,
    },
  },
  order: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      status: { type: 'string' },
      amountMinor: { type: 'integer' },
      currency: { type: 'string' },
      paidAttemptId: nullableText,
      createdAtMs: epochMs,
      updatedAtMs: epochMs,
    },
  },
  paymeTransaction: {
    type: 'object',
    properties: {
      provider: { type: 'string', enum: ['payme'] },
      id: { type: 'string', description: "Payme's transaction id" },
      transaction: { type: 'string', description: "the merchant's transaction id answered to Payme" },
      orderId: { type: 'string' },
      state: { type: 'integer', enum: [1, 2, -1, -2] },
      reason: { type: 'integer', nullable: true, description: 'cancel reason' },
      amountTiyin: { type: 'integer' },
      timeMs: { ...epochMs, description: "Payme's creation time" },
      createTimeMs: epochMs,
      performTimeMs: { ...epochMs, nullable: true },
      cancelTimeMs: { ...epochMs, nullable: true },
    },
  },
  clickTransaction: {
    type: 'object',
    properties: {
      provider: { type: 'string', enum: ['click'] },
      clickTransId: { type: 'integer' },
      merchantPrepareId: { type: 'integer' },
      clickPaydocId: { type: 'integer', nullable: true },
      orderId: { type: 'string', description: 'merchant_trans_id' },
      status: { type: 'string', enum: ['prepared', 'completed', 'cancelled'] },
      clickError: { type: 'integer', nullable: true, description: "Click's negative error when it cancelled" },
      amountTiyin: { type: 'integer' },
      prepareTimeMs: epochMs,
      completeTimeMs: { ...epochMs, nullable: true },
      cancelTimeMs: { ...epochMs, nullable: true },
    },
  },
  uzumTransaction: {
    type: 'object',
    properties: {
      provider: { type: 'string', enum: ['uzum'] },
      transId: { type: 'string' },
      orderId: { type: 'string' },
      status: { type: 'string', enum: ['CREATED', 'CONFIRMED', 'REVERSED'] },
      amountTiyin: { type: 'integer' },
      transTimeMs: epochMs,
      confirmTimeMs: { ...epochMs, nullable: true },
      reverseTimeMs: { ...epochMs, nullable: true },
    },
  },
  action: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      atMs: epochMs,
      actor: { type: 'string' },
      via: { type: 'string', enum: ['session', 'token'] },
      action: { type: 'string' },
      target: { type: 'string' },
      orderId: nullableText,
      dryRun: { type: 'boolean' },
      outcome: { type: 'string', enum: ['done', 'refused', 'dry-run', 'failed'] },
      detail: {},
    },
  },
} as const;

/** An item of the provider transactions list: the Payme, Click or Uzum shape, told apart by `provider`. */
export const providerTransactionSchema = {
  oneOf: [itemSchemas.paymeTransaction, itemSchemas.clickTransaction, itemSchemas.uzumTransaction],
} as const;

/** `GET /admin/api/orders/:id/provider-transactions` (documentation). */
export const orderProviderTransactionsSchema = {
  type: 'object',
  properties: {
    orderId: { type: 'string' },
    payme: { type: 'array', items: itemSchemas.paymeTransaction, description: 'newest first, at most 100' },
    click: { type: 'array', items: itemSchemas.clickTransaction, description: 'newest first, at most 100' },
    uzum: { type: 'array', items: itemSchemas.uzumTransaction, description: 'newest first, at most 100' },
  },
} as const;

/** `GET /admin/api/payme/statement` (documentation): GetStatement's transactions, account cut to the order field. */
export const paymeStatementSchema = {
  type: 'object',
  properties: {
    fromMs: epochMs,
    toMs: epochMs,
    transactions: {
      type: 'array',
      description: 'oldest first; the objects GetStatement answers (fixtures payme/rpc/GetStatement.json)',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          time: epochMs,
          amount: { type: 'integer', description: 'tiyin' },
          account: { type: 'object', description: 'only the order field shown; other values [REDACTED]' },
          create_time: epochMs,
          perform_time: { ...epochMs, description: '0 when not performed' },
          cancel_time: { ...epochMs, description: '0 when not cancelled' },
          transaction: { type: 'string' },
          state: { type: 'integer', enum: [1, 2, -1, -2] },
          reason: { type: 'integer', nullable: true },
          receivers: { type: 'array', nullable: true, items: { type: 'object' } },
        },
      },
    },
  },
} as const;

/** The answer of every action: its journal row id, whether it was a dry run, and its result. */
export const actionResultSchema = {
  type: 'object',
  properties: { actionId: { type: 'string' }, dryRun: { type: 'boolean' }, result: { type: 'object' } },
} as const;

/** A replay's `dryRun`: a dry run unless `false` is sent (absent means dry run; `null` or a string is 400). */
const dryRun = {
  type: 'boolean',
  default: true,
  description: 'true (the default when absent): only say what the replay would do; false: replay',
} as const;

/** Bodies of the actions. */
export const bodySchemas = {
  release: {
    type: 'object',
    additionalProperties: false,
    required: ['provider', 'externalId', 'expectedAttempts'],
    properties: {
      provider: { type: 'string', minLength: 1, maxLength: 160 },
      externalId: { type: 'string', minLength: 1, maxLength: 160 },
      expectedAttempts: {
        type: 'integer',
        minimum: 1,
        maximum: 2_147_483_647,
        description: 'the attempt number the operator saw',
      },
    },
  },
  retry: {
    type: 'object',
    additionalProperties: false,
    required: ['provider', 'externalId'],
    properties: {
      provider: { type: 'string', minLength: 1, maxLength: 160 },
      externalId: { type: 'string', minLength: 1, maxLength: 160 },
    },
  },
  empty: { type: 'object', additionalProperties: false, properties: {} },
  replayOne: {
    type: 'object',
    additionalProperties: false,
    properties: { dryRun },
  },
  replayRange: {
    type: 'object',
    additionalProperties: false,
    properties: {
      dryRun,
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
      filter: {
        type: 'object',
        additionalProperties: false,
        properties: {
          provider: { type: 'string', maxLength: 160 },
          decision: { type: 'string', enum: ['new', 'duplicate', 'in-progress', 'rejected'] },
          outcome: { type: 'string', enum: ['completed', 'declined', 'replayed', 'deferred', 'failed', 'rejected'] },
          eventType: { type: 'string', maxLength: 160 },
          eventKey: { type: 'string', maxLength: 160 },
          fromMs: epochMs,
          toMs: epochMs,
        },
      },
    },
  },
} as const;

const counts = { type: 'object', additionalProperties: { type: 'integer' } } as const;

/** `GET /admin/api/overview` (documentation). */
export const overviewSchema = {
  type: 'object',
  properties: {
    atMs: epochMs,
    receipts: {
      type: 'object',
      properties: {
        byProvider: { type: 'object', additionalProperties: counts },
        total: { type: 'integer' },
        stuck: { type: 'integer', description: 'processing older than the stale limit of its kind' },
        failed: { type: 'integer' },
      },
    },
    jobs: { ...counts, description: 'outbox jobs by state (dead = dead letter) and total' },
    parkedEvents: { type: 'integer' },
    attempts: {
      type: 'object',
      properties: {
        unresolved: { type: 'integer', description: 'creating or unknown' },
        unknown: { type: 'integer' },
        waiting: { type: 'integer', description: 'pending or requires_action' },
        total: { type: 'integer' },
      },
    },
    orders: { ...counts, description: 'orders by status and total' },
    deliveries: {
      type: 'object',
      properties: {
        lastHour: { ...counts, description: 'deliveries of the last hour by decision and total' },
        perMinute: {
          type: 'array',
          description: '60 one-minute buckets, oldest first',
          items: {
            type: 'object',
            properties: {
              minuteMs: epochMs,
              new: { type: 'integer' },
              duplicate: { type: 'integer' },
              inProgress: { type: 'integer' },
              rejected: { type: 'integer' },
            },
          },
        },
      },
    },
  },
} as const;

/** `GET /admin/api/orders/:id/timeline` (documentation). */
export const timelineSchema = {
  type: 'object',
  properties: {
    order: itemSchemas.order,
    trace: {
      type: 'object',
      nullable: true,
      description: 'the trace of the request that created or last checked out the order (payonce serve --otel)',
      properties: {
        id: { type: 'string', description: 'W3C trace id, 32 hex digits' },
        url: { ...nullableText, description: 'its link in the trace viewer (--otel-trace-url)' },
      },
    },
    attempts: { type: 'array', items: itemSchemas.attempt },
    deliveries: { type: 'array', items: itemSchemas.delivery },
    actions: { type: 'array', items: itemSchemas.action },
    counts: {
      type: 'object',
      properties: {
        paidTransitions: { type: 'integer' },
        deliveries: { type: 'integer' },
        rejectedDeliveries: { type: 'integer' },
        fulfilments: { type: 'integer' },
        refunds: { type: 'integer' },
      },
    },
    entries: {
      type: 'array',
      description: 'oldest first',
      items: {
        type: 'object',
        properties: {
          atMs: epochMs,
          kind: {
            type: 'string',
            enum: ['order', 'attempt', 'provider-call', 'transition', 'delivery', 'job', 'effect', 'alert', 'action'],
          },
          title: { type: 'string' },
          detail: nullableText,
          ref: nullableText,
          tone: { type: 'string', enum: ['ok', 'info', 'warn', 'bad'] },
        },
      },
    },
  },
} as const;

/** `GET /admin/api/session` (documentation). */
export const sessionSchema = {
  type: 'object',
  properties: {
    operator: { type: 'string' },
    via: { type: 'string', enum: ['session', 'token'] },
    csrfToken: { ...nullableText, description: 'send it in X-CSRF-Token on every POST made with the session cookie' },
    expiresAtMs: { ...epochMs, nullable: true },
  },
} as const;
