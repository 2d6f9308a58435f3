import pg from 'pg';
import type { LoadRecord } from './load.js';
import type { ReplicaSet } from './replica-set.js';

/** One invariant of the replica soak: its name, how many violations, and examples. */
export interface InvariantResult {
  readonly name: string;
  readonly checked: number;
  readonly violations: number;
  readonly examples: readonly string[];
}

const PAID = ['paid', 'fulfilling', 'completed', 'refunded'];

/**
 * Checks, after the load stopped and the system settled: one order per Idempotency-Key (client answers and the
 * orders table, one key per customer), at most one charge per order (sandbox ledger), exactly one fulfilment per
 * paid order and none for unpaid ones, no acknowledged (2xx) delivery without a completed receipt and a journal row,
 * no 5xx outside the outages.
 */
export async function checkInvariants(
  connection: { connectionString: string; options: string },
  set: ReplicaSet,
  record: LoadRecord,
): Promise<InvariantResult[]> {
  const client = new pg.Client(connection);
  await client.connect();
  try {
    const results: InvariantResult[] = [];
    const multiKey = [...record.ordersByKey].filter(([, ids]) => ids.size > 1).map(([key]) => key);
    const perCustomer = await client.query<{ principal: string; n: string; first: string; last: string }>(
      `select principal, count(*) as n, min(created_at) as first, max(created_at) as last from payonce_orders
       group by principal having count(*) > 1`,
    );
    const soakCustomers = perCustomer.rows.filter((row) => record.customers.has(row.principal));
    results.push({
      name: 'one order per Idempotency-Key',
      checked: record.ordersByKey.size,
      violations: multiKey.length + soakCustomers.length,
      examples: [
        ...multiKey,
        ...soakCustomers.map((r) => {
          const [first, last] = [Number(r.first), Number(r.last)];
          const kill = set.outages.find((o) => o.fromMs >= first - 100 && o.fromMs <= last);
          const why = kill ? `, replica ${kill.replica + 1} killed ${kill.fromMs - first} ms after the first` : '';
          return `${r.principal}: ${r.n} orders created ${last - first} ms apart${why}`;
        }),
      ].slice(0, 5),
    });

    const orders = await client.query<{ id: string; status: string; fulfilments: string }>(
      `select o.id, o.status, (select count(*) from payonce_service_fulfilments f where f.order_id = o.id) as fulfilments
       from payonce_orders o`,
    );
    const overcharged: string[] = [];
    const badFulfilment: string[] = [];
    for (const order of orders.rows) {
      const ledger = set.sandbox.controls.orderLedger(order.id);
      if (ledger.chargeCount > 1) overcharged.push(`${order.id}: ${ledger.chargeCount} charges`);
      const fulfilments = Number(order.fulfilments);
      const paid = PAID.includes(order.status);
      if (paid ? fulfilments !== 1 : fulfilments !== 0) {
        badFulfilment.push(`${order.id} (${order.status}): ${fulfilments} fulfilments`);
      }
      if (ledger.chargeCount === 1 && !paid) badFulfilment.push(`${order.id}: charged but ${order.status}`);
    }
    results.push({
      name: '≤ 1 charge per order',
      checked: orders.rowCount ?? 0,
      violations: overcharged.length,
      examples: overcharged.slice(0, 5),
    });
    results.push({
      name: 'one fulfilment per paid order (none unpaid; charged ⇒ paid)',
      checked: orders.rowCount ?? 0,
      violations: badFulfilment.length,
      examples: badFulfilment.slice(0, 5),
    });

    const acknowledged = set.sandbox.controls
      .deliveries()
      .filter((d) => d.status !== null && d.status >= 200 && d.status < 300);
    const receipts = await client.query<{ external_id: string }>(
      "select external_id from payonce_receipts where status = 'completed'",
    );
    const journaled = await client.query<{ event_id: string }>(
      'select distinct event_key as event_id from payonce_webhook_deliveries where event_key is not null',
    );
    const haveReceipt = new Set(receipts.rows.map((r) => r.external_id));
    const haveJournal = new Set(journaled.rows.map((r) => r.event_id));
    const lost = acknowledged
      .filter((d) => !haveReceipt.has(d.eventId) || !haveJournal.has(d.eventId))
      .map((d) => `${d.eventId} (${d.eventType}, ${d.status})`);
    results.push({
      name: 'zero acknowledged deliveries without receipt and journal row',
      checked: acknowledged.length,
      violations: lost.length,
      examples: lost.slice(0, 5),
    });
    results.push({
      name: 'zero 5xx (or no answer) outside outages',
      checked: record.requests,
      violations: record.errorsOutsideOutages.length,
      examples: record.errorsOutsideOutages.slice(0, 5),
    });
    return results;
  } finally {
    await client.end();
  }
}
