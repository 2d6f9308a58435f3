import type { Params } from './wire/params.js';
import { invalidParam, type JsonObject } from './wire/stripe-api-error.js';

/** An item of a list: its id and creation time (Unix s) and its API object. */
export interface Listed {
  readonly id: string;
  readonly createdSec: number;
  readonly object: () => JsonObject;
}

/** Filter on `created`: `created=…` or `created[gt|gte|lt|lte]=…` (Unix seconds). */
function createdFilter(params: Params): (sec: number) => boolean {
  if (!params.has('created')) return () => true;
  const raw = params.raw.created;
  if (typeof raw !== 'object' || raw === null) {
    const exact = params.integer('created');
    return (sec) => exact === undefined || sec === exact;
  }
  const range = params.object('created')!.only(['gt', 'gte', 'lt', 'lte']);
  const gt = range.integer('gt');
  const gte = range.integer('gte');
  const lt = range.integer('lt');
  const lte = range.integer('lte');
  return (sec) =>
    (gt === undefined || sec > gt) &&
    (gte === undefined || sec >= gte) &&
    (lt === undefined || sec < lt) &&
    (lte === undefined || sec <= lte);
}

/**
 * Stripe's list answer `{ object: "list", data, has_more, url }` over `items` (given oldest first; lists are
 * newest first), with `limit` (1–100, default 10), cursor `starting_after` / `ending_before` (an id of the list)
 * and the `created` filter.
 * @throws {StripeApiError} 400 for a bad limit, an unknown cursor id or both cursors.
 * @see https://docs.stripe.com/api/pagination
 */
export function listPage(
  items: readonly Listed[],
  params: Params,
  url: string,
  extraKeys: readonly string[] = [],
): JsonObject {
  params.only(['limit', 'starting_after', 'ending_before', 'created', 'expand', ...extraKeys]);
  const limit = params.integer('limit', 1, 100) ?? 10;
  const after = params.string('starting_after', 255);
  const before = params.string('ending_before', 255);
  if (after !== undefined && before !== undefined) {
    throw invalidParam('ending_before', 'You may only specify one of these parameters: ending_before, starting_after.');
  }
  const inRange = createdFilter(params);
  const newestFirst = [...items].reverse().filter((item) => inRange(item.createdSec));
  let page: Listed[];
  let hasMore: boolean;
  if (after !== undefined) {
    const at = newestFirst.findIndex((item) => item.id === after);
    if (at < 0) throw invalidParam('starting_after', `No such object: '${after}'`, 'resource_missing');
    page = newestFirst.slice(at + 1, at + 1 + limit);
    hasMore = at + 1 + limit < newestFirst.length;
  } else if (before !== undefined) {
    const at = newestFirst.findIndex((item) => item.id === before);
    if (at < 0) throw invalidParam('ending_before', `No such object: '${before}'`, 'resource_missing');
    const start = Math.max(0, at - limit);
    page = newestFirst.slice(start, at);
    hasMore = start > 0;
  } else {
    page = newestFirst.slice(0, limit);
    hasMore = newestFirst.length > limit;
  }
  return { object: 'list', data: page.map((item) => item.object()), has_more: hasMore, url };
}
