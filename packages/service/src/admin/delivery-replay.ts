import { type SandboxSigningScheme, signedHeaders } from '@payonce/sandbox/internal/webhook-signer.js';
import type { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import type { WebhookIntake } from 'payonce/internal/webhooks/intake.js';
import type { DeliveryRow } from './admin-lists.js';
import { type AdminReads, num } from './admin-reads.js';

/** How one configured endpoint is replayed to: its name, signing scheme and the secret its scheme verifies. */
export interface ReplayTarget {
  /** The intake endpoint name (`stripe`, `standard-webhooks`). */
  readonly endpoint: string;
  readonly scheme: SandboxSigningScheme;
  readonly secret: string;
}

/** What a replay of one journaled delivery would do (dry run) or did. */
export type ReplayVerdict = 'refused' | 'run' | 'retry' | 'duplicate' | 'in-progress' | 'takeover';

/** The plan (and, after a run, the result) of replaying one delivery. */
export interface ReplayItem {
  readonly deliveryId: string;
  readonly provider: string;
  readonly eventKey: string | null;
  readonly eventType: string | null;
  readonly verdict: ReplayVerdict;
  /** Why, in one sentence. */
  readonly reason: string;
  /** After a run: the intake's HTTP status and the decision/outcome it journaled. */
  readonly result?: { readonly status: number; readonly decision: string | null; readonly outcome: string | null };
}

/**
 * Replays journaled deliveries through the service's webhook intake. The intake journals only the redacted,
 * parsed payload (never the raw bytes, docs/design.md §5), so a replay re-serialises that payload, signs it afresh with the
 * endpoint's own secret (a fresh timestamp, within tolerance) and sends it through the same pipeline: signature,
 * extraction, receipt claim on the same event key, the same handler, a new journal row. The intake it is given is
 * built from the same endpoints with `fingerprint: 'none'`, because re-serialised bytes differ from the original
 * ones while the event key is the same. Consequences: a completed receipt answers its stored response and nothing
 * runs again; a failed one runs its handler again; a delivery whose signature never verified (a forgery) is never
 * re-signed.
 */
export class DeliveryReplayer {
  private readonly reads: AdminReads;
  private readonly intake: WebhookIntake | null;
  private readonly guard: IdempotencyGuard;
  private readonly targets: ReadonlyMap<string, ReplayTarget>;

  /** @param targets replay targets by receipt provider (the journal's `provider` column). */
  constructor(
    reads: AdminReads,
    intake: WebhookIntake | null,
    guard: IdempotencyGuard,
    targets: ReadonlyMap<string, ReplayTarget>,
  ) {
    this.reads = reads;
    this.intake = intake;
    this.guard = guard;
    this.targets = targets;
  }

  /** What replaying `row` would do now (reads the receipt; changes nothing). */
  async plan(row: DeliveryRow): Promise<ReplayItem> {
    const base = { deliveryId: row.id, provider: row.provider, eventKey: row.event_key, eventType: row.event_type };
    const refuse = (reason: string): ReplayItem => ({ ...base, verdict: 'refused', reason });
    if (row.signature !== 'valid') {
      return refuse(`its signature never verified (${row.signature}): a forgery is never re-signed`);
    }
    if (row.event_key === null || row.payload === null) return refuse('no event key or payload was journaled');
    if (row.payload.endsWith('…[TRUNCATED]')) return refuse('its journaled payload was truncated');
    if (!this.intake || !this.targets.has(row.provider)) {
      return refuse(`no ${row.provider} endpoint with a secret is configured in this process`);
    }
    const receipt = await this.guard.find(new RequestKey(row.provider, row.event_key));
    if (receipt === null) return { ...base, verdict: 'run', reason: 'no receipt: the handler runs' };
    if (receipt.status === 'completed') {
      return {
        ...base,
        verdict: 'duplicate',
        reason: 'receipt completed: the stored answer is replayed, nothing runs',
      };
    }
    if (receipt.status === 'failed')
      return { ...base, verdict: 'retry', reason: 'receipt failed: the handler runs again' };
    const ageMs = this.reads.clock.now() - receipt.claimedAtMs;
    if (ageMs < this.guard.options.staleAfterMs) {
      return { ...base, verdict: 'in-progress', reason: 'claim held elsewhere: answered 409, nothing runs' };
    }
    return { ...base, verdict: 'takeover', reason: 'stale claim: taken over, the handler runs' };
  }

  /** Plans `row`, and unless refused sends it through the intake; the item carries the result. */
  async replay(row: DeliveryRow): Promise<ReplayItem> {
    const planned = await this.plan(row);
    const target = this.targets.get(row.provider);
    if (planned.verdict === 'refused' || !this.intake || !target || row.payload === null || row.event_key === null) {
      return planned;
    }
    const body = row.payload;
    const nowSec = Math.floor(this.reads.clock.now() / 1000);
    const headers = {
      ...signedHeaders({ scheme: target.scheme, secret: target.secret }, row.event_key, body, nowSec),
      'user-agent': 'payonce-admin-replay',
    };
    const response = await this.intake.receive({
      endpoint: target.endpoint,
      rawBody: new TextEncoder().encode(body),
      headers,
    });
    const journaled = await this.reads.db
      .selectFrom('payonce_webhook_deliveries')
      .select(['decision', 'outcome', 'received_at'])
      .where('provider', '=', row.provider)
      .where('event_key', '=', row.event_key)
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    const fresh = journaled !== undefined && num(journaled.received_at) >= nowSec * 1000 - 1000;
    return {
      ...planned,
      result: {
        status: response.status,
        decision: fresh ? journaled.decision : null,
        outcome: fresh ? journaled.outcome : null,
      },
    };
  }
}
