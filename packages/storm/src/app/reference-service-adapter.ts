import { parseOrderView } from '../order-view.js';
import { attemptFieldOf, attemptIdOf, orderIdOf, outcomeOf, ServiceApi, UnexpectedAnswer } from '../service-api.js';
import { pidKillControl, replicaKillControl, type ServiceControl } from '../service-control.js';
import { StormHttp } from '../storm-http.js';
import type { AppPaymentAnswer, StormAppAdapter, StormOrderStatus } from './storm-app-adapter.js';

/** Options of {@link referenceServiceAdapter}. */
export interface ReferenceServiceOptions {
  /** Base URL of the service (docs/service.md). */
  readonly target: string;
  /** Base URLs of every replica (round-robin; scenarios 19–22 with two or more). @default `[target]` */
  readonly replicas?: readonly string[];
  /** Bearer token of `/admin/*`: without it there is no `rerunFulfilment` (scenario 14 is skipped). */
  readonly adminToken?: string | null;
  /** How to kill and restart the service. @default SIGKILL by the `/healthz` pid (loopback targets only) */
  readonly serviceControl?: ServiceControl;
  /** Budget of one HTTP request, and of a restart after a kill, in ms. @default 30_000 */
  readonly timeoutMs?: number;
}

/**
 * The reference service's HTTP contract (docs/service.md) as a {@link StormAppAdapter}: `POST /orders`,
 * `POST /orders/:id/checkout`, `GET /orders/:id` (an `OrderView`: attempts, jobs, journal), webhooks at
 * `/webhooks/stripe` or `/webhooks/standard-webhooks`, `GET /healthz`, and with `adminToken` the console's job
 * rerun. Every capability but `rerunFulfilment` (needs the admin token) and `replicas` (needs two) is offered.
 * @throws {OrderViewShapeError} from `readOrder` when `GET /orders/:id` is not an OrderView.
 * @throws {UnexpectedAnswer} from `readOrder` on any status but 200; `health` throws when a `/healthz` does not
 * answer 200 (the message says which).
 */
export function referenceServiceAdapter(options: ReferenceServiceOptions): StormAppAdapter {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const replicas = options.replicas ?? [options.target];
  const http = new StormHttp(timeoutMs);
  const service = new ServiceApi(http, replicas);
  const on = (replica: number | undefined) => (replica === undefined ? service : service.on(replica));
  const control =
    options.serviceControl ??
    (replicas.length > 1
      ? replicaKillControl(replicas, { restartTimeoutMs: timeoutMs })
      : pidKillControl(replicas[0] ?? options.target, { restartTimeoutMs: timeoutMs }));
  const adminToken = options.adminToken ?? null;
  return {
    name: `reference service ${options.target}`,
    async health() {
      for (const base of new Set([options.target, ...replicas])) {
        const url = `${base}/healthz`;
        const answer = await http.send({ method: 'GET', url }).catch((error: unknown) => {
          throw new Error(`the service does not answer at ${url}`, { cause: error });
        });
        if (answer.status !== 200) throw new Error(`the service answered ${answer.status} at ${url}`);
      }
    },
    webhookUrl: (scheme, replica) => `${on(replica).baseUrl}/webhooks/${scheme}`,
    async createOrder({ customer, money, idempotencyKey, replica }) {
      const answer = await on(replica).createOrder(customer, money, idempotencyKey);
      return { ...answer, orderId: orderIdOf(answer) };
    },
    async startPayment({ customer, orderId, idempotencyKey, replica }) {
      const answer = await on(replica).checkout(customer, orderId, idempotencyKey);
      const outcome = outcomeOf(answer);
      return {
        ...answer,
        attemptId: attemptIdOf(answer),
        attemptStatus: attemptFieldOf(answer, 'status'),
        providerPaymentId: attemptFieldOf(answer, 'providerPaymentId'),
        outcome: (outcome === 'created' || outcome === 'existing' || outcome === 'already-paid'
          ? outcome
          : null) satisfies AppPaymentAnswer['outcome'],
      };
    },
    async readOrder({ customer, orderId, replica }) {
      const answer = await on(replica).order(customer, orderId);
      if (answer.status !== 200) throw new UnexpectedAnswer(`GET /orders/${orderId}`, answer);
      const view = parseOrderView(answer.json);
      // docs/service.md's statuses are the storm's vocabulary: kept as they are (an unknown one is judged unpaid).
      const status = view.order.status as StormOrderStatus;
      return {
        status,
        amountMinor: view.order.amountMinor,
        currency: view.order.currency,
        paidTransitions: view.paidTransitions,
        fulfilments: view.fulfilments.length,
        refunds: status === 'refunded' ? 1 : 0,
        attempts: view.attempts,
        jobs: view.jobs,
        journal: view.journal,
        deliveries: view.deliveries,
      };
    },
    capabilities: {
      attempts: true,
      jobs: true,
      journal: true,
      refunds: true,
      crashAndRestart: (replica) => control.crashAndRestart(replica),
      ...(adminToken === null
        ? {}
        : {
            rerunFulfilment: ({ jobId, idempotencyKey, replica }) =>
              on(replica).rerunJob(adminToken, jobId, idempotencyKey),
          }),
      ...(replicas.length > 1 ? { replicas } : {}),
    },
    close: () => http.close(),
  };
}
