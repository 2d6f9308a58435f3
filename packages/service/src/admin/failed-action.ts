import type { FastifyRequest } from 'fastify';
import type { AdminActionRecord, AdminActor } from './admin-audit.js';

/** Errors an action already journaled itself (its refusal row is written; the error handler must not add one). */
const journaled = new WeakSet<object>();

/** Marks `error` as journaled by the action that threw it. */
export function markJournaled(error: unknown): void {
  if (typeof error === 'object' && error !== null) journaled.add(error);
}

/** True when the action that threw `error` journaled it already. */
export function isJournaled(error: unknown): boolean {
  return typeof error === 'object' && error !== null && journaled.has(error);
}

/**
 * `value` as journal text: anything outside visible ASCII escaped as `\uXXXX`, at most 200 characters. Total: a
 * value JSON cannot write (a function, a symbol, `undefined`, a bigint, a cycle) becomes its `String()`.
 */
function printable(value: unknown): string {
  let text: string | undefined;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  } catch {
    text = undefined;
  }
  return (text ?? String(value))
    .slice(0, 200)
    .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The own fields of a JSON object body; nothing for an array, `null` or a scalar (never `Array.prototype.filter`). */
function bodyFields(body: unknown): Readonly<Record<string, unknown>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const own = (key: string) => (Object.hasOwn(body, key) ? (body as Record<string, unknown>)[key] : undefined);
  return { filter: own('filter'), provider: own('provider'), externalId: own('externalId'), dryRun: own('dryRun') };
}

/** The action names of the admin API's POST routes (URL template after `/admin/api`). */
const ACTIONS: Readonly<Record<string, string>> = {
  '/receipts/release': 'release-claim',
  '/receipts/retry': 'retry-receipt',
  '/jobs/:id/rerun': 'rerun-job',
  '/attempts/:id/reconcile': 'reconcile-attempt',
  '/deliveries/:id/replay': 'replay-delivery',
  '/deliveries/replay': 'replay-range',
};

/**
 * The journal row of an admin action that failed before or outside its own journaling (bad input, a missing
 * `Idempotency-Key`, an unexpected error), or `null` when `request` is no action. The target is rebuilt from the
 * request with every non-printable character escaped, so any dialect stores it.
 */
export function failedActionRecord(
  request: FastifyRequest,
  actor: AdminActor,
  detail: { code: string; message: string },
  status: number,
): AdminActionRecord | null {
  const template = request.routeOptions.url?.replace(/^\/admin\/api/, '') ?? '';
  const action = request.method === 'POST' ? ACTIONS[template] : undefined;
  if (action === undefined) return null;
  const params = (request.params ?? {}) as Record<string, unknown>;
  const body = bodyFields(request.body);
  const kind = template.split('/')[1] ?? '';
  const target =
    params.id !== undefined
      ? `${kind.replace(/s$/, '')}:${printable(params.id)}`
      : action === 'replay-range'
        ? `range:${printable(body.filter ?? {})}`
        : `receipt:${printable(body.provider)}/${printable(body.externalId)}`;
  return {
    actor,
    action,
    target,
    orderId: null,
    dryRun: body.dryRun !== false && action.startsWith('replay'),
    outcome: status >= 500 ? 'failed' : 'refused',
    detail: { code: detail.code, message: printable(detail.message) },
  };
}
