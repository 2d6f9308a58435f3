import { hasCapability, type StormAppAdapter, type StormCapability } from './storm-app-adapter.js';

/** What to do to offer each capability, for the skip reason. */
const HOW: Readonly<Record<StormCapability, string>> = {
  attempts: 'readOrder must return the payment attempts (capabilities.attempts)',
  jobs: 'readOrder must return the outbox jobs with order.fulfil (capabilities.jobs)',
  journal: 'readOrder must return the webhook journal and deliveries (capabilities.journal)',
  refunds: 'the app must apply refunds (capabilities.refunds)',
  crashAndRestart:
    'the adapter must kill and restart the app (capabilities.crashAndRestart; payonce storm --start does)',
  rerunFulfilment:
    'the adapter must re-run a fulfilment job (capabilities.rerunFulfilment; the reference service needs its admin token: --admin-token, PAYONCE_ADMIN_TOKEN)',
  replicas:
    'needs at least 2 replicas of the app (capabilities.replicas; payonce demo --replicas N, payonce storm --replica URL --replica URL …)',
};

/**
 * The skip reason of a scenario that needs capabilities `adapter` lacks (the first one missing, and how to offer
 * it), or `null` when it has them all.
 */
export function missingCapability(adapter: StormAppAdapter, needs: readonly StormCapability[]): string | null {
  const missing = needs.find((capability) => !hasCapability(adapter, capability));
  return missing === undefined ? null : `skipped: the app adapter ${adapter.name} lacks ${missing}: ${HOW[missing]}`;
}
