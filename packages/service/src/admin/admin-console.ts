import type { FastifyInstance } from 'fastify';
import { StoreUnavailable } from 'payonce/internal/core/errors.js';
import { TokenBucket } from 'payonce/internal/core/token-bucket.js';
import { tablesOf } from 'payonce/internal/stores/sql/table-namespace.js';
import { createWebhookIntake, type WebhookIntake } from 'payonce/internal/webhooks/intake.js';
import { createRedactor } from 'payonce/internal/webhooks/journal/redact.js';
import type { ServiceContext } from '../service-context.js';
import type { ServiceEndpoint } from '../webhook-endpoints.js';
import { AdminActions } from './admin-actions.js';
import { registerAdminApi } from './admin-api.js';
import { AdminSessions } from './admin-auth.js';
import type { AdminReads } from './admin-reads.js';
import type { AdminDatabase } from './admin-tables.js';
import { registerConsolePages } from './console-pages.js';
import { DeliveryReplayer, type ReplayTarget } from './delivery-replay.js';

/** How the console replays deliveries: an intake over the service's endpoints, and a target per receipt provider. */
export interface ReplayParts {
  /** The intake replays go through (`null` when no endpoint is configured). */
  readonly intake: WebhookIntake | null;
  /** Replay targets by receipt provider (the journal's `provider` column). */
  readonly targets: ReadonlyMap<string, ReplayTarget>;
  /** Receipt providers of the webhook endpoints (for stale limits and retries). */
  readonly webhookProviders: readonly string[];
}

/**
 * Builds the replay side of the console from the service's webhook endpoints: the same profiles, schemes, handler,
 * receipt guard and journal, in an intake whose endpoints do not fingerprint (a replay re-serialises the redacted
 * payload, so its bytes differ from the original's while its event key is the same), and a signing target per
 * endpoint with its first configured secret.
 */
export function replayPartsOf(ctx: ServiceContext, endpoints: Readonly<Record<string, ServiceEndpoint>>): ReplayParts {
  const targets = new Map<string, ReplayTarget>();
  const secrets: Record<string, { scheme: ReplayTarget['scheme']; secret: string | undefined }> = {
    stripe: { scheme: 'stripe', secret: ctx.config.stripeWebhookSecrets[0] },
    'standard-webhooks': { scheme: 'standard-webhooks', secret: ctx.config.standardWebhooksSecrets[0] },
  };
  const unfingerprinted: Record<string, ServiceEndpoint> = {};
  for (const [name, endpoint] of Object.entries(endpoints)) {
    unfingerprinted[name] = { ...endpoint, fingerprint: 'none' };
    const signing = secrets[name];
    if (signing?.secret)
      targets.set(endpoint.profile.provider, { endpoint: name, scheme: signing.scheme, secret: signing.secret });
  }
  const intake =
    Object.keys(unfingerprinted).length > 0
      ? createWebhookIntake({ guard: ctx.intakeGuard, journal: ctx.journal, endpoints: unfingerprinted })
      : null;
  const providers = Object.values(endpoints).map((e) => e.profile.provider);
  return { intake, targets, webhookProviders: providers.length > 0 ? providers : ['stripe', 'standard-webhooks'] };
}

/**
 * The intake's receipt store for `AdminReads.intakeReceipts`, when it is not the SQL store and can count; its
 * failure (Redis down) is a `StoreUnavailable`, so the overview answers 503 `STORE_UNAVAILABLE` like the webhooks.
 */
function intakeReceiptsOf(ctx: ServiceContext): Pick<AdminReads, 'intakeReceipts'> {
  const intake = ctx.intakeGuard.store;
  const count = intake.countAbandoned;
  if (intake === ctx.store || typeof count !== 'function') return {};
  const countAbandoned = async (abandonedBeforeMs: number) => {
    try {
      return await count.call(intake, abandonedBeforeMs);
    } catch (error) {
      throw new StoreUnavailable('countAbandoned', error);
    }
  };
  return { intakeReceipts: { countAbandoned } };
}

/** Options of {@link registerAdminConsole}. */
export interface AdminConsoleOptions {
  /** The admin token (`PAYONCE_ADMIN_TOKEN`). */
  readonly adminToken: string;
  readonly replay: ReplayParts;
  /** False when no provider is configured (`payonce console` without `--provider-url`): reconcile is refused. */
  readonly providerAvailable: boolean;
  /** Replayed deliveries allowed per second (token bucket refill). @default 5 */
  readonly replayPerSecond?: number;
  /** Most deliveries replayed at once (bucket size; also the largest range a run may send). @default 100 */
  readonly replayBurst?: number;
}

/**
 * Adds the operator console to a fastify app (docs/console.md): the admin API under `/admin/api` (with its
 * OpenAPI document) and the web console under `/console`, sharing one set of sessions.
 * @throws fastify's error when a plugin cannot be registered.
 */
export async function registerAdminConsole(
  app: FastifyInstance,
  ctx: ServiceContext,
  options: AdminConsoleOptions,
): Promise<void> {
  const sessions = new AdminSessions(options.adminToken, ctx.clock);
  const reads: AdminReads = {
    db: tablesOf<AdminDatabase>(ctx.store),
    dialect: ctx.store.name,
    clock: ctx.clock,
    redactor: createRedactor(),
    stale: {
      http: ctx.httpGuard.options.staleAfterMs,
      webhook: ctx.intakeGuard.options.staleAfterMs,
      payments: ctx.payments.guard.options.staleAfterMs,
      webhookProviders: options.replay.webhookProviders,
    },
    ...intakeReceiptsOf(ctx),
  };
  const replayer = new DeliveryReplayer(reads, options.replay.intake, ctx.intakeGuard, options.replay.targets);
  const bucket = new TokenBucket(options.replayBurst ?? 100, options.replayPerSecond ?? 5, ctx.clock);
  const actions = new AdminActions(ctx, reads, replayer, bucket, options.providerAvailable);
  await registerAdminApi(app, { ctx, sessions, reads, actions });
  await registerConsolePages(app, ctx, sessions);
}
