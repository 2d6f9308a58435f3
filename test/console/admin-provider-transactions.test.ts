import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { tablesOf } from '../../packages/payonce/src/stores/sql/table-namespace.js';
import { readPaymeStatement } from '../../packages/service/src/admin/admin-payme-statement.js';
import {
  listProviderTransactions,
  type ProviderTransactionQuery,
} from '../../packages/service/src/admin/admin-provider-transactions.js';
import type { AdminReads } from '../../packages/service/src/admin/admin-reads.js';
import type { AdminDatabase } from '../../packages/service/src/admin/admin-tables.js';
import { openAdminReads } from '../../packages/service/src/admin/open-admin-reads.js';
import { ACCOUNT, AMOUNT, AUTH, CANCEL_REASON, KEY, newPaymeId } from '../providers/payme/payme-fixtures.js';
import { PAYME_BACKENDS, paymeNamespace } from '../providers/payme/payme-stores.js';
import { call, type Harness, startHarness } from '../service/service-harness.js';
import { admin } from './admin-client.js';

/** The account field of the fixtures' cashbox (`order_id` in Payme's examples). */
const FIELD = Object.keys(ACCOUNT)[0] as string;
const TOKEN = `tok_${randomUUID().replace(/-/g, '')}`;
/** A payer's phone number a cashbox may ask for in `account` (never shown by the console). */
const PHONE = '998901234567';

type Db = Kysely<AdminDatabase>;
type Item = Record<string, unknown>;
type ListAnswer = { items: Item[]; nextCursor: string | null };

/** A cancelled (state -1) Payme row of a fresh order, created at `createTime`, Payme `time` = `paymeTime`. */
async function paymeRow(db: Db, createTime: number, paymeTime = createTime, account: Item = {}): Promise<string> {
  const paymeId = newPaymeId();
  const orderId = `order-${paymeId}`;
  await db
    .insertInto('payonce_payme_transactions')
    .values({
      payme_id: paymeId,
      transaction_id: randomUUID(),
      order_id: orderId,
      account: JSON.stringify({ [FIELD]: orderId, ...account }),
      amount_tiyin: AMOUNT,
      state: -1,
      reason: CANCEL_REASON,
      payme_time: paymeTime,
      create_time: createTime,
      perform_time: null,
      cancel_time: createTime + 1,
      fiscal_perform: null,
      fiscal_cancel: null,
    })
    .execute();
  return paymeId;
}

/** A Click row of `orderId` (state 0 prepared, 1 completed, -1 cancelled) prepared at `prepareTime`. */
async function clickRow(db: Db, orderId: string, state: 0 | 1 | -1, prepareTime: number): Promise<number> {
  const clickTransId = Math.floor(Math.random() * 1e12);
  await db
    .insertInto('payonce_click_transactions')
    .values({
      click_trans_id: clickTransId,
      click_paydoc_id: clickTransId + 1,
      service_id: 1,
      merchant_trans_id: orderId,
      amount_tiyin: AMOUNT,
      state,
      click_error: null,
      prepare_time: prepareTime,
      complete_time: state === 1 ? prepareTime + 1 : null,
      cancel_time: state === -1 ? prepareTime + 1 : null,
    })
    .execute();
  return clickTransId;
}

/** An Uzum row of `orderId` whose `params` and `data` carry a phone number, created at `transTime`. */
async function uzumRow(db: Db, orderId: string, status: string, transTime: number): Promise<string> {
  const transId = randomUUID().replace(/-/g, '');
  await db
    .insertInto('payonce_uzum_transactions')
    .values({
      trans_id: transId,
      order_id: orderId,
      params: JSON.stringify({ account: orderId, phone: PHONE }),
      amount_tiyin: AMOUNT,
      status,
      data: JSON.stringify({ phone: { value: PHONE } }),
      trans_time: transTime,
      confirm_time: status === 'CONFIRMED' ? transTime + 1 : null,
      reverse_time: status === 'REVERSED' ? transTime + 1 : null,
    })
    .execute();
  return transId;
}

/** Every page of a list read with `limit` rows each: the items in order, and how many pages it took. */
async function allPages<T>(
  read: (cursor: string | undefined) => Promise<{ items: readonly T[]; nextCursor: string | null }>,
) {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await read(cursor);
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
    pages += 1;
  } while (cursor !== undefined && pages < 50);
  return { items, pages };
}

describe('admin API: provider transactions and the Payme statement (service on SQLite)', () => {
  let h: Harness;
  let url: string;
  let db: Db;
  let serial = 0;
  beforeAll(async () => {
    h = await startHarness({ adminToken: TOKEN, paymeKeys: KEY, paymeAccountField: FIELD });
    url = h.service.url;
    db = h.service.context.store.db as unknown as Db;
  });
  afterAll(async () => {
    await h?.close();
  });

  const get = <T = Item>(path: string, token: string | null = TOKEN) => admin<T>(url, 'GET', path, { token });

  async function rpc(method: string, params: Record<string, unknown>) {
    serial += 1;
    const response = await fetch(`${url}/payme`, {
      method: 'POST',
      headers: new Headers({ ...AUTH.valid.headers, 'Content-Type': 'application/json' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: serial, method, params }),
    });
    return (await response.json()) as { result?: Record<string, unknown>; error?: { code: number } };
  }

  /** A UZS service order with a caller-chosen id, created through POST /orders. */
  async function uzsOrder(): Promise<string> {
    const orderId = `order-${newPaymeId()}`;
    const created = await call(url, 'POST', '/orders', { body: { orderId, amountMinor: AMOUNT, currency: 'UZS' } });
    expect(created.status).toBe(201);
    return orderId;
  }

  it('answers 401 without the admin token on every new read', async () => {
    for (const path of [
      '/admin/api/provider-transactions',
      '/admin/api/orders/x/provider-transactions',
      '/admin/api/payme/statement?fromMs=0&toMs=1',
    ]) {
      for (const token of [null, `${TOKEN}x`]) {
        const answer = await get<{ code: string }>(path, token);
        expect(answer.status, path).toBe(401);
        expect(answer.body.code).toBe('ADMIN_TOKEN_INVALID');
      }
    }
  });

  it("shows an order's Payme transactions (as Payme made them), its Click and Uzum ones; never a phone or the key", async () => {
    const orderId = await uzsOrder();
    const account = { [FIELD]: orderId };
    const time = Date.now();
    const cancelledId = newPaymeId();
    expect((await rpc('CreateTransaction', { id: cancelledId, time, amount: AMOUNT, account })).result).toMatchObject({
      state: 1,
    });
    expect((await rpc('CancelTransaction', { id: cancelledId, reason: CANCEL_REASON })).result).toMatchObject({
      state: -1,
    });
    const paidId = newPaymeId();
    expect(
      (await rpc('CreateTransaction', { id: paidId, time: time + 1, amount: AMOUNT, account })).result,
    ).toBeDefined();
    const performed = await rpc('PerformTransaction', { id: paidId });
    expect(performed.result).toMatchObject({ state: 2 });
    const clickTransId = await clickRow(db, orderId, -1, time);
    const transId = await uzumRow(db, orderId, 'REVERSED', time);

    const answer = await get<{ orderId: string; payme: Item[]; click: Item[]; uzum: Item[] }>(
      `/admin/api/orders/${orderId}/provider-transactions`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.orderId).toBe(orderId);
    expect(answer.body.payme).toHaveLength(2);
    expect(answer.body.payme).toEqual(
      expect.arrayContaining([
        {
          provider: 'payme',
          id: cancelledId,
          transaction: expect.any(String),
          orderId,
          state: -1,
          reason: CANCEL_REASON,
          amountTiyin: AMOUNT,
          timeMs: time,
          createTimeMs: expect.any(Number),
          performTimeMs: null,
          cancelTimeMs: expect.any(Number),
        },
        expect.objectContaining({
          id: paidId,
          state: 2,
          reason: null,
          timeMs: time + 1,
          performTimeMs: performed.result?.perform_time,
          cancelTimeMs: null,
        }),
      ]),
    );
    expect(answer.body.click).toEqual([
      {
        provider: 'click',
        clickTransId,
        merchantPrepareId: expect.any(Number),
        clickPaydocId: clickTransId + 1,
        orderId,
        status: 'cancelled',
        clickError: null,
        amountTiyin: AMOUNT,
        prepareTimeMs: time,
        completeTimeMs: null,
        cancelTimeMs: time + 1,
      },
    ]);
    expect(answer.body.uzum).toEqual([
      {
        provider: 'uzum',
        transId,
        orderId,
        status: 'REVERSED',
        amountTiyin: AMOUNT,
        transTimeMs: time,
        confirmTimeMs: null,
        reverseTimeMs: time + 1,
      },
    ]);
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(PHONE);
    expect(text).not.toContain(KEY);

    const missing = await get<{ code: string }>('/admin/api/orders/order-none/provider-transactions');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('ORDER_NOT_FOUND');
    const another = await get<{ payme: Item[]; click: Item[]; uzum: Item[] }>(
      `/admin/api/orders/${await uzsOrder()}/provider-transactions`,
    );
    expect(another.body).toMatchObject({ payme: [], click: [], uzum: [] });
  });

  it('lists one provider at a time, newest first, filtered by state and order, paged by cursor without gaps', async () => {
    const base = 1_000_000;
    for (const at of [base, base, base, base + 1, base + 2]) await paymeRow(db, at);
    const expected = (
      await db
        .selectFrom('payonce_payme_transactions')
        .select('payme_id')
        .orderBy('create_time', 'desc')
        .orderBy('payme_id', 'desc')
        .execute()
    ).map((row) => row.payme_id);
    const paged = await allPages(async (cursor) => {
      const query = `provider=payme&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      return (await get<ListAnswer>(`/admin/api/provider-transactions?${query}`)).body;
    });
    expect(paged.items.map((item) => item.id)).toEqual(expected);
    expect(paged.pages).toBe(Math.ceil(expected.length / 2));
    // Payme is the default provider.
    const first = await get<ListAnswer>('/admin/api/provider-transactions?limit=200');
    expect(first.body.items.map((item) => item.id)).toEqual(expected);

    const performed = await get<ListAnswer>('/admin/api/provider-transactions?provider=payme&state=2');
    expect(performed.body.items.length).toBeGreaterThan(0);
    expect(performed.body.items.every((item) => item.state === 2)).toBe(true);
    const cancelled = await get<ListAnswer>('/admin/api/provider-transactions?state=-1&limit=200');
    expect(cancelled.body.items.length).toBe(expected.length - performed.body.items.length);

    const orderId = await uzsOrder();
    await clickRow(db, orderId, -1, base);
    const live = await clickRow(db, orderId, 0, base + 1);
    const clicks = await get<ListAnswer>(`/admin/api/provider-transactions?provider=click&orderId=${orderId}`);
    expect(clicks.body.items.map((item) => [item.provider, item.status])).toEqual([
      ['click', 'prepared'],
      ['click', 'cancelled'],
    ]);
    const prepared = await get<ListAnswer>('/admin/api/provider-transactions?provider=click&state=prepared');
    expect(prepared.body.items.map((item) => item.clickTransId)).toEqual([live]);
    await uzumRow(db, orderId, 'CONFIRMED', base);
    const uzum = await get<ListAnswer>('/admin/api/provider-transactions?provider=uzum&state=CONFIRMED');
    expect(uzum.body.items).toEqual([expect.objectContaining({ provider: 'uzum', orderId, status: 'CONFIRMED' })]);
    expect(JSON.stringify(uzum.body)).not.toContain(PHONE);

    for (const [query, why] of [
      ['provider=uzum&state=2', /state of uzum must be one of/],
      ['provider=stripe', /provider/],
      ['state=paid', /state/],
      ['cursor=nonsense', /cursor/],
      ['limit=500', /limit/],
      ['status=2', /status/],
    ] as const) {
      const refused = await get<{ code: string; detail: string }>(`/admin/api/provider-transactions?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.code).toBe('ADMIN_QUERY_INVALID');
      expect(refused.body.detail, query).toMatch(why);
    }
  });

  it("answers the Payme statement with GetStatement's rows; other account fields are redacted", async () => {
    const from = 5_000_000;
    const orderId = await uzsOrder();
    const account = { [FIELD]: orderId };
    const id = newPaymeId();
    expect((await rpc('CreateTransaction', { id, time: from + 10, amount: AMOUNT, account })).result).toBeDefined();
    await paymeRow(db, Date.now(), from + 20, { payer_phone: PHONE });
    await paymeRow(db, Date.now(), from + 1_000); // outside the range

    const range = `fromMs=${from}&toMs=${from + 999}`;
    const answer = await get<{ fromMs: number; toMs: number; transactions: Item[] }>(
      `/admin/api/payme/statement?${range}`,
    );
    expect(answer.status).toBe(200);
    const statement = await rpc('GetStatement', { from, to: from + 999 });
    const rows = (statement.result?.transactions ?? []) as Item[];
    expect(rows.map((row) => row.id)).toEqual(answer.body.transactions.map((row) => row.id));
    expect(answer.body.transactions).toHaveLength(2);
    expect(answer.body.transactions[0]).toEqual(rows[0]); // its account holds the order field only
    const phoned = rows[1] as Item;
    expect(answer.body.transactions[1]).toEqual({
      ...phoned,
      account: { [FIELD]: (phoned.account as Item)[FIELD], payer_phone: '[REDACTED]' },
    });
    expect(JSON.stringify(answer.body)).not.toContain(PHONE);
    expect(answer.body).toMatchObject({ fromMs: from, toMs: from + 999 });

    for (const query of [`fromMs=${from + 1}&toMs=${from}`, `fromMs=${from}`, `fromMs=-1&toMs=2`, `${range}&x=1`]) {
      const refused = await get<{ code: string }>(`/admin/api/payme/statement?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.code).toBe('ADMIN_QUERY_INVALID');
    }
  });
});

/** The same reads straight on each SQL backend: the keyset pages, filters and the statement hold on every dialect. */
describe.each(PAYME_BACKENDS)('provider transaction reads on %s', (backend) => {
  let reads: AdminReads;
  let db: Db;
  let close: () => Promise<void>;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const namespace = await paymeNamespace(backend);
    const store = (await namespace.open()) as SqlStore<unknown>;
    db = tablesOf<AdminDatabase>(store);
    drop = namespace.drop;
    ({ reads, close } = await openAdminReads(namespace.target));
  });
  afterAll(async () => {
    await close?.();
    await drop?.();
  });

  it('pages each provider by (time, id) across ties, filters by state, and reads the statement', async () => {
    const payme: string[] = [];
    for (const at of [7, 7, 7, 8, 9]) payme.push(await paymeRow(db, at, at, { payer_phone: PHONE }));
    const click: number[] = [];
    const uzum: string[] = [];
    for (const [i, at] of [7, 7, 7, 8, 9].entries()) {
      click.push(await clickRow(db, `order-${i}`, i === 4 ? 1 : -1, at));
      uzum.push(await uzumRow(db, `order-${i}`, i === 4 ? 'CONFIRMED' : 'REVERSED', at));
    }
    const ids = async (query: ProviderTransactionQuery, key: string) =>
      (await allPages((cursor) => listProviderTransactions(reads, { ...query, limit: 2, cursor }))).items.map(
        (item) => (item as unknown as Item)[key],
      );
    const newestFirst = <T>(list: T[], at: number[]) =>
      list
        .map((id, i) => ({ id, at: at[i] as number }))
        .sort((a, b) => b.at - a.at || (String(b.id) < String(a.id) ? -1 : 1))
        .map((row) => row.id);
    const times = [7, 7, 7, 8, 9];
    expect(await ids({ provider: 'payme' }, 'id')).toEqual(newestFirst(payme, times));
    expect(await ids({ provider: 'uzum' }, 'transId')).toEqual(newestFirst(uzum, times));
    // Ties of prepare_time are broken by merchant_prepare_id, which grows with each insert.
    expect(await ids({ provider: 'click' }, 'clickTransId')).toEqual([...click].reverse());
    expect(await ids({ provider: 'click', state: 'completed' }, 'clickTransId')).toEqual([click[4]]);
    expect(await ids({ provider: 'uzum', state: 'REVERSED', orderId: 'order-1' }, 'transId')).toEqual([uzum[1]]);
    expect(await ids({ provider: 'payme', state: '2' }, 'id')).toEqual([]);

    const statement = await readPaymeStatement(reads, { fromMs: 7, toMs: 8 }, FIELD);
    expect(statement.transactions.map((row) => row.id)).toEqual(
      newestFirst(payme.slice(0, 4), times.slice(0, 4)).reverse(),
    );
    expect(statement.transactions[0]).toMatchObject({
      state: -1,
      amount: AMOUNT,
      account: { payer_phone: '[REDACTED]' },
    });
    await expect(readPaymeStatement(reads, { fromMs: 9, toMs: 8 }, FIELD)).rejects.toMatchObject({
      code: 'ADMIN_QUERY_INVALID',
    });
  });
});
