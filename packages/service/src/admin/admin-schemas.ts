/**
 * JSON Schemas of the admin API: they validate the query strings and bodies (fastify's Ajv) and describe every
 * route in the OpenAPI document (`@fastify/swagger`). Responses are documented here and sent pre-serialised.
 */

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
