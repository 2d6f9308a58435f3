import type { ViewAttempt } from '../order-view.js';
import type { StormAppAdapter, StormOrderState } from './storm-app-adapter.js';

/**
 * `value` as the storm keeps ids: a number or bigint (a serial primary key an adapter handed over as is) becomes
 * its decimal string, anything else stays as it is.
 */
export function idText<T>(value: T): T {
  return (typeof value === 'number' || typeof value === 'bigint' ? String(value) : value) as T;
}

function attemptWithIds(attempt: ViewAttempt): ViewAttempt {
  return { ...attempt, id: idText(attempt.id), providerPaymentId: idText(attempt.providerPaymentId) };
}

/** The order state with every id in it (attempts, jobs, journal and delivery event ids) as {@link idText}. */
export function stateWithIds(state: StormOrderState): StormOrderState {
  return {
    ...state,
    ...(state.attempts === undefined ? {} : { attempts: state.attempts.map(attemptWithIds) }),
    ...(state.jobs === undefined ? {} : { jobs: state.jobs.map((job) => ({ ...job, id: idText(job.id) })) }),
    ...(state.journal === undefined
      ? {}
      : { journal: state.journal.map((entry) => ({ ...entry, eventId: idText(entry.eventId) })) }),
    ...(state.deliveries === undefined
      ? {}
      : { deliveries: state.deliveries.map((delivery) => ({ ...delivery, eventId: idText(delivery.eventId) })) }),
  };
}

/**
 * `adapter` with every id it hands the storm as a string: order ids of `createOrder`, attempt and provider payment
 * ids of `startPayment`, the ids in `readOrder`'s state. An app whose ids are numbers (a serial primary key) then
 * runs like any other: the storm compares, prints and sends back ids as their decimal strings. Methods are
 * delegated, so a class-based adapter keeps its `this`.
 */
export function withStringIds(adapter: StormAppAdapter): StormAppAdapter {
  const close = adapter.close;
  return {
    name: adapter.name,
    health: () => adapter.health(),
    webhookUrl: (scheme, replica) => adapter.webhookUrl(scheme, replica),
    async createOrder(call) {
      const answer = await adapter.createOrder(call);
      return { ...answer, orderId: idText(answer.orderId) };
    },
    async startPayment(call) {
      const answer = await adapter.startPayment(call);
      return {
        ...answer,
        attemptId: idText(answer.attemptId),
        providerPaymentId: idText(answer.providerPaymentId),
      };
    },
    readOrder: async (call) => stateWithIds(await adapter.readOrder(call)),
    ...(adapter.capabilities === undefined ? {} : { capabilities: adapter.capabilities }),
    ...(adapter.providers === undefined ? {} : { providers: adapter.providers }),
    ...(close === undefined ? {} : { close: () => close.call(adapter) }),
  };
}
