import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { createClickMerchant } from '../../../packages/payonce/src/providers/click/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { paymeNamespace as sqlNamespace } from '../payme/payme-stores.js';
import { AMOUNT_TIYIN, noteOf, ORDER, SERVICE_ID, SIGNATURES } from './click-fixtures.js';
import { clickBench } from './click-harness.js';

/** The fixture requests, byte for byte, through `handle` (the protocol does not depend on the dialect: SQLite). */
describe('Click SHOP API protocol on the fixture requests', () => {
  let namespace: Awaited<ReturnType<typeof sqlNamespace>>;
  let store: SqlStore<unknown>;
  beforeAll(async () => {
    namespace = await sqlNamespace('sqlite');
    store = await namespace.open();
  });
  afterAll(async () => namespace?.drop());

  const post = async (bench: ReturnType<typeof clickBench>, rawBody: string) => {
    const response = await bench.merchant.handle({ rawBody: new TextEncoder().encode(rawBody) });
    expect(response).toMatchObject({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });
    return JSON.parse(response.body) as Record<string, unknown>;
  };

  it('accepts the valid Prepare (01) and refuses the invalid signatures (03, 04, 05) with -1', async () => {
    const bench = clickBench(store);
    bench.orders.set(ORDER, AMOUNT_TIYIN);
    const form = new URLSearchParams(SIGNATURES.prepare.raw_body);
    expect(await post(bench, SIGNATURES.prepare.raw_body)).toEqual({
      click_trans_id: Number(form.get('click_trans_id')),
      merchant_trans_id: ORDER,
      merchant_prepare_id: expect.any(Number),
      error: 0,
      error_note: noteOf(0),
    });
    for (const fixture of [SIGNATURES.completeWithPrepareFormula, SIGNATURES.amountFormatting]) {
      expect(await post(bench, fixture.raw_body), fixture.description).toMatchObject({
        error: -1,
        error_note: noteOf(-1),
      });
    }
    const otherSecret = clickBench(store, { secretKey: SIGNATURES.wrongSecret.secret }, bench.orders);
    expect(await post(otherSecret, SIGNATURES.wrongSecret.raw_body)).toMatchObject({ error: -1 });
    // A key rotation: the old and the new key both verify.
    const rotating = clickBench(store, { secretKey: ['another-key', SIGNATURES.prepare.secret] }, bench.orders);
    expect((await post(rotating, SIGNATURES.prepare.raw_body)).error).toBe(0);
  });

  it('passes the valid Complete (02) signature check: its merchant_prepare_id names no transaction here, -6', async () => {
    const bench = clickBench(store);
    bench.orders.set(ORDER, AMOUNT_TIYIN);
    const answer = await post(bench, SIGNATURES.complete.raw_body);
    expect(answer).toMatchObject({ error: -6, error_note: noteOf(-6), merchant_confirm_id: null });
  });

  it('refuses options it cannot run with', () => {
    const valid = {
      store,
      serviceId: SERVICE_ID,
      secretKey: 'k',
      findOrder: async () => null,
      onCompleted: () => {},
    };
    expect(() => createClickMerchant({ ...valid, serviceId: 0 })).toThrow(InvalidOption);
    expect(() => createClickMerchant({ ...valid, secretKey: '' })).toThrow(InvalidOption);
    expect(() => createClickMerchant({ ...valid, secretKey: undefined })).toThrow(InvalidOption);
    expect(() => createClickMerchant({ ...valid, keyProvider: { secretKeys: async () => ['k'] } })).toThrow(
      InvalidOption,
    );
    expect(() => createClickMerchant({ ...valid, store: {} as never })).toThrow(InvalidOption);
  });
});
