import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Redactor } from 'payonce/internal/webhooks/journal/redact.js';
import { ADMIN_ACTIONS_TABLE, type AdminDatabase } from './admin-tables.js';

/** Who takes an action: the operator name given at login (or `X-Operator` with a bearer token) and how. */
export interface AdminActor {
  /** 1–64 visible ASCII characters; `operator` when none was given. */
  readonly name: string;
  /** `session`: the console's cookie (CSRF-checked); `token`: `Authorization: Bearer`. */
  readonly via: 'session' | 'token';
}

/** One action to journal. */
export interface AdminActionRecord {
  readonly actor: AdminActor;
  /** `release-claim`, `retry-receipt`, `rerun-job`, `reconcile-attempt`, `replay-delivery`, `replay-range`. */
  readonly action: string;
  /** What it acted on, e.g. `receipt:stripe/evt_1`, `job:<id>`, `delivery:<id>`. */
  readonly target: string;
  readonly orderId: string | null;
  readonly dryRun: boolean;
  /** `failed`: an unexpected error (5xx) stopped it; `refused`: a typed 4xx refusal. */
  readonly outcome: 'done' | 'refused' | 'dry-run' | 'failed';
  readonly detail: unknown;
}

/** Longest journaled detail (JSON characters); longer is cut and marked `…[TRUNCATED]`. */
const MAX_DETAIL_CHARS = 16_384;

/**
 * Appends one row to `payonce_admin_actions` with a new id and `atMs` (epoch ms UTC); the detail is redacted first.
 * @returns the row id. @throws the driver's error when the database fails.
 */
export async function journalAction(
  db: Kysely<AdminDatabase>,
  redactor: Redactor,
  atMs: number,
  record: AdminActionRecord,
): Promise<string> {
  const id = randomUUID();
  const json = JSON.stringify(redactor.redact(record.detail ?? null));
  const detail =
    json.length <= MAX_DETAIL_CHARS ? json : JSON.stringify(`${json.slice(0, MAX_DETAIL_CHARS)}…[TRUNCATED]`);
  await db
    .insertInto(ADMIN_ACTIONS_TABLE)
    .values({
      id,
      at: atMs,
      actor: record.actor.name,
      via: record.actor.via,
      action: record.action,
      target: record.target.slice(0, 400),
      order_id: record.orderId,
      dry_run: record.dryRun ? 1 : 0,
      outcome: record.outcome,
      detail,
    })
    .execute();
  return id;
}
