import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import {
  createPaymeMerchant,
  PAYME_METHODS,
  storedPaymeKeys,
} from '../../../packages/payonce/src/providers/payme/index.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { AMOUNT, AUTH, code, GOOD_HEADERS, KEY } from './payme-fixtures.js';
import { paymeBench } from './payme-harness.js';
import { PAYME_BACKENDS, paymeNamespace } from './payme-stores.js';

const basic = (key: string) => ({ Authorization: `Basic ${Buffer.from(`Paycom:${key}`).toString('base64')}` });

for (const backend of PAYME_BACKENDS) {
  describe(`${backend}: Payme Merchant API protocol`, () => {
    let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      namespace = await paymeNamespace(backend);
      store = await namespace.open();
    });
    afterAll(async () => namespace?.drop());

    it('accepts the auth fixture marked valid and refuses the others -32504, on the fixture bodies', async () => {
      const bench = paymeBench(store);
      bench.addOrder();
      for (const fixture of Object.values(AUTH)) {
        const response = await bench.merchant.handle({ rawBody: fixture.raw_body, headers: fixture.headers });
        expect(response.status).toBe(200);
        const answer = JSON.parse(response.body) as { result?: unknown; error?: { code: number } };
        if (fixture.expected === 'valid') expect(answer.result).toEqual({ allow: true });
        else expect(answer.error?.code).toBe(code('-32504'));
      }
    });

    it('answers a body that is not JSON -32700, missing fields -32600 and an unknown method -32601', async () => {
      const bench = paymeBench(store);
      const send = async (rawBody: string) =>
        JSON.parse((await bench.merchant.handle({ rawBody, headers: GOOD_HEADERS })).body) as {
          id: unknown;
          error?: { code: number; data?: string; message: Record<string, string> };
        };
      expect((await send('{"method":')).error?.code).toBe(code('-32700'));
      const noParams = await send('{"id":3,"method":"CheckTransaction"}');
      expect(noParams).toMatchObject({ id: 3, error: { code: code('-32600') } });
      const unknown = await send('{"id":4,"method":"NoSuchMethod","params":{}}');
      expect(unknown).toMatchObject({ id: 4, error: { code: code('-32601'), data: 'NoSuchMethod' } });
      expect(Object.keys(unknown.error?.message ?? {}).sort()).toEqual(['en', 'ru', 'uz']);
      const badAmount = await send('{"id":5,"method":"CheckPerformTransaction","params":{"amount":"x","account":{}}}');
      expect(badAmount).toMatchObject({ id: 5, error: { code: code('-32600'), data: 'amount' } });
      for (const method of PAYME_METHODS) {
        const answer = await send(JSON.stringify({ id: 6, method, params: {} }));
        expect(answer.error?.code, method).not.toBe(code('-32601'));
      }
    });

    it('takes a ChangePassword on one replica on every replica, with storedPaymeKeys', async () => {
      const other = await namespace.open();
      const keyed = (replicaStore: SqlStore<unknown>) => ({
        keys: undefined,
        keyProvider: storedPaymeKeys(replicaStore, { initialKeys: KEY }),
      });
      expect(await storedPaymeKeys(store, { initialKeys: KEY }).initialKeysIgnored()).toBe(false);
      const first = paymeBench(store, keyed(store));
      const second = paymeBench(other, keyed(other), first.orders);
      const order = first.addOrder();
      const check = { amount: AMOUNT, account: order.account };
      expect((await second.call('CheckPerformTransaction', check)).result).toEqual({ allow: true });
      const newKey = 'placeholder-new-cashbox-key';
      expect((await first.call('ChangePassword', { password: newKey })).result).toEqual({ success: true });
      expect((await second.call('CheckPerformTransaction', check)).error?.code).toBe(code('-32504'));
      expect((await second.call('CheckPerformTransaction', check, basic(newKey))).result).toEqual({ allow: true });
      const restartedKeys = storedPaymeKeys(store, { initialKeys: KEY });
      expect(await restartedKeys.initialKeysIgnored()).toBe(true); // the stored key wins over initialKeys
      expect(await storedPaymeKeys(store, { initialKeys: newKey }).initialKeysIgnored()).toBe(false);
      const restarted = paymeBench(store, { keys: undefined, keyProvider: restartedKeys });
      expect((await restarted.call('ChangePassword', { password: 'x' })).error?.code).toBe(code('-32504'));
      const empty = await first.call('ChangePassword', { password: '' }, basic(newKey));
      expect(empty.error?.code).toBe(code('-32600'));
      // Longer than the stored key's column: refused as a bad field on every dialect (PostgreSQL once said -32400).
      const huge = await first.call('ChangePassword', { password: 'p'.repeat(201) }, basic(newKey));
      expect(huge.error?.code).toBe(code('-32600'));
      expect((await first.call('CheckTransaction', { id: 'x' }, basic(newKey))).error?.code).not.toBe(code('-32504'));
    });

    it('answers a call from outside allowIps -32504', async () => {
      const bench = paymeBench(store, { allowIps: ['192.0.2.10'] });
      bench.addOrder();
      const rawBody = AUTH.valid.raw_body;
      const outside = await bench.merchant.handle({ rawBody, headers: GOOD_HEADERS, client: '198.51.100.7' });
      expect(JSON.parse(outside.body).error.code).toBe(code('-32504'));
      const inside = await bench.merchant.handle({ rawBody, headers: GOOD_HEADERS, client: '::ffff:192.0.2.10' });
      expect(JSON.parse(inside.body).result).toEqual({ allow: true });
    });

    it('answers an id no row can hold -32600, and a findOrder answer that is no order -32400 with InvalidOption', async () => {
      const bench = paymeBench(store);
      const badId = await bench.call('PerformTransaction', { id: 'ид-транзакции' });
      expect(badId.error).toMatchObject({ code: code('-32600'), data: 'id' });
      const errors: unknown[] = [];
      const broken = paymeBench(store, {
        onError: (error) => errors.push(error),
        findOrder: async () => ({ orderId: '', amountTiyin: AMOUNT }),
      });
      const answer = await broken.call('CheckPerformTransaction', { amount: AMOUNT, account: { any: '1' } });
      expect(answer.error?.code).toBe(code('-32400'));
      expect(errors).toEqual([expect.any(InvalidOption)]);
    });

    it('refuses bad options with InvalidOption', () => {
      const base = { store, findOrder: async () => null, onPerformed: async () => {} };
      expect(() => createPaymeMerchant({ ...base })).toThrow(InvalidOption);
      expect(() => createPaymeMerchant({ ...base, keys: '' })).toThrow(InvalidOption);
      expect(() => createPaymeMerchant({ ...base, keys: KEY, findOrder: undefined as never })).toThrow(InvalidOption);
      expect(() => createPaymeMerchant({ ...base, keys: KEY, store: {} as never })).toThrow(InvalidOption);
      expect(() => createPaymeMerchant({ ...base, keys: KEY, allowIps: 'x' as never })).toThrow(InvalidOption);
      expect(() => storedPaymeKeys(store, { initialKeys: [] })).toThrow(InvalidOption);
    });
  });
}
