import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Kysely } from 'kysely';
import { runEffectOnce } from '../../packages/payonce/src/outbox/effect-ledger.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import type { OutboxJob } from '../../packages/payonce/src/outbox/outbox-job.js';
import { OutboxWorker } from '../../packages/payonce/src/outbox/outbox-worker.js';
import { createPaymeMerchant } from '../../packages/payonce/src/providers/payme/index.js';
import type { PaymeStormTarget } from '../../packages/storm/src/payme/index.js';
import { KEY } from '../providers/payme/payme-fixtures.js';
import { type PaymeBackend, paymeNamespace } from '../providers/payme/payme-stores.js';
import { type AnswerRewrite, staleReplay } from '../sandbox/payme-merchant-app.js';

/** How the app is broken, to see the storm catch it. */
export type PaymeAppFault =
  /** Fulfils again on every PerformTransaction answered state 2 (repeats included), beside the outbox job. */
  | 'fulfil-every-perform'
  /** Answers every repeat of (method, id) with the first answer stored (a generic receipt store). */
  | 'stale-replay'
  /** Runs the fulfilment without the effect ledger, so a re-run job ships again. */
  | 'unguarded-job';

/** The in-process app: its storm target, its HTTP base URL (service-shaped routes), and how to stop it. */
export interface PaymeStormApp {
  readonly target: PaymeStormTarget;
  /** `POST /payme`, `POST /orders`, `GET /orders/:id`, `POST /admin/api/jobs/:id/rerun`, `GET /healthz`. */
  readonly url: string;
  close(): Promise<void>;
}

const FULFIL = 'order.fulfil';
const REFUND = 'order.refunded';
const ACCOUNT_FIELD = 'order_id';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A shop on `createPaymeMerchant` behind Express on a fresh namespace of `backend`: orders in memory, a perform
 * enqueues an `order.fulfil` job (one per performed transaction: the paid transitions), a cancel after perform an
 * `order.refunded` job; a worker runs the jobs, the fulfilment guarded by the effect ledger. Its clock is the system
 * clock plus an offset the storm may move. `fault` breaks it on purpose.
 */
export async function startPaymeStormApp(backend: PaymeBackend, fault?: PaymeAppFault): Promise<PaymeStormApp> {
  const namespace = await paymeNamespace(backend);
  const store = await namespace.open();
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };
  const orders = new Map<string, number>();
  const fulfilled = new Map<string, number>();
  const outbox = new Outbox(store);
  const ship = (orderId: string) => fulfilled.set(orderId, (fulfilled.get(orderId) ?? 0) + 1);
  const merchant = createPaymeMerchant({
    store,
    keys: KEY,
    clock,
    accountField: ACCOUNT_FIELD,
    findOrder: async (account) => {
      const orderId = String(account[ACCOUNT_FIELD]);
      const amountTiyin = orders.get(orderId);
      return amountTiyin === undefined ? null : { orderId, amountTiyin };
    },
    onPerformed: async (trx, tx) => {
      await outbox.enqueueOnce(trx, FULFIL, `paid:${tx.orderId}:${tx.paymeId}`, { orderId: tx.orderId });
    },
    onCancelled: async (trx, tx) => {
      if (tx.state === -2) await outbox.enqueueOnce(trx, REFUND, `refund:${tx.orderId}:${tx.paymeId}`, {});
    },
  });
  const fulfil = async (job: OutboxJob) => {
    const { orderId } = job.payload as { orderId: string };
    if (fault === 'unguarded-job') ship(orderId);
    else {
      const done = await runEffectOnce(store, `fulfil:${orderId}`, async () => {}, { jobId: job.id });
      if (done.kind === 'applied') ship(orderId);
    }
  };
  const worker = new OutboxWorker(store, { [FULFIL]: fulfil, [REFUND]: async () => {} }, { pollIntervalMs: 10 });
  worker.start();

  const db = () => {
    const kysely = store.db as unknown as Kysely<{
      payonce_outbox: { id: string; topic: string; dedupe_key: string; status: string };
    }>;
    return store.schema ? kysely.withSchema(store.schema) : kysely;
  };
  const jobs = (topic: string, prefix: string) =>
    db()
      .selectFrom('payonce_outbox')
      .select(['id', 'topic', 'status'])
      .where('topic', '=', topic)
      .where('dedupe_key', 'like', `${prefix}%`)
      .execute();
  const countsOf = async (orderId: string) => ({
    paidTransitions: (await jobs(FULFIL, `paid:${orderId}:`)).length,
    fulfilments: fulfilled.get(orderId) ?? 0,
    refunds: (await jobs(REFUND, `refund:${orderId}:`)).length,
  });
  const rerun = async (jobId: string) => {
    const requeued = await outbox.requeue(jobId);
    for (let i = 0; i < 200; i++) {
      const job = await outbox.findById(jobId);
      if (job?.status === 'done' && job.attempts > 0) return `requeued the done job; it ran again (${requeued.kind})`;
      await sleep(10);
    }
    throw new Error('the re-run job did not finish');
  };

  const rewrite: AnswerRewrite | undefined = fault === 'stale-replay' ? staleReplay() : undefined;
  const app = express();
  app.post('/payme', express.raw({ type: () => true }), async (req, res) => {
    const rawBody = req.body as Buffer;
    const answer = await merchant.handle({ rawBody, headers: req.headers });
    if (fault === 'fulfil-every-perform' && JSON.parse(answer.body).result?.state === 2) {
      const id = (JSON.parse(rawBody.toString('utf8')) as { params?: { id?: string } }).params?.id ?? '';
      const tx = await merchant.find(id);
      if (tx !== null) ship(tx.orderId);
    }
    res
      .status(answer.status)
      .set(answer.headers)
      .end(rewrite === undefined ? answer.body : rewrite(answer.body, rawBody));
  });
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok', pid: process.pid }));
  app.post('/orders', express.json(), (req, res) => {
    const { orderId, amountMinor, currency } = req.body as {
      orderId?: string;
      amountMinor?: number;
      currency?: string;
    };
    if (typeof orderId !== 'string' || !Number.isSafeInteger(amountMinor) || currency !== 'UZS') {
      return void res.status(400).json({ code: 'INVALID_REQUEST_BODY' });
    }
    orders.set(orderId, amountMinor as number);
    res.status(201).json({ order: { id: orderId, status: 'draft', amountMinor, currency } });
  });
  app.get('/orders/:id', async (req, res) => {
    const orderId = req.params.id;
    if (!orders.has(orderId)) return void res.status(404).json({ code: 'ORDER_NOT_FOUND' });
    const counts = await countsOf(orderId);
    const all = [...(await jobs(FULFIL, `paid:${orderId}:`)), ...(await jobs(REFUND, `refund:${orderId}:`))];
    res.json({
      order: { id: orderId, status: counts.paidTransitions > 0 ? 'paid' : 'draft' },
      paidTransitions: counts.paidTransitions,
      fulfilments: Array.from({ length: counts.fulfilments }, (_, i) => ({ id: `f${i}`, jobId: null })),
      jobs: all,
    });
  });
  app.post('/admin/api/jobs/:id/rerun', async (req, res) => {
    await rerun(req.params.id);
    res.status(200).json({ rerun: true });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const orderOf = (account: Readonly<Record<string, unknown>>) => String(account[ACCOUNT_FIELD]);
  const target: PaymeStormTarget = {
    merchantUrl: `${url}/payme`,
    key: KEY,
    description: `in-process app on ${backend}${fault === undefined ? '' : ` (${fault})`}`,
    missing: { crash: 'the in-process app shares the storm’s process and cannot be killed' },
    async createOrder(amount) {
      const orderId = `storm-${randomBytes(8).toString('hex')}`;
      orders.set(orderId, amount);
      return { account: { [ACCOUNT_FIELD]: orderId }, amount };
    },
    readOrder: (account) => countsOf(orderOf(account)),
    clock: {
      now: clock.now,
      advance: (ms) => {
        offsetMs += ms;
      },
    },
    async rerunFulfilment(account) {
      const [job] = await jobs(FULFIL, `paid:${orderOf(account)}:`);
      if (job === undefined) throw new Error('the order has no fulfilment job');
      return { note: await rerun(job.id) };
    },
  };
  return {
    target,
    url,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await worker.stop();
      await namespace.drop();
    },
  };
}
