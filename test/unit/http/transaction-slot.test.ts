import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { TransactionSlot } from '../../../packages/payonce/src/http/transaction-slot.js';

describe('TransactionSlot', () => {
  it('hands out the stack transaction only in the stack mode, and names the stack accessor otherwise', () => {
    const slot = new TransactionSlot<object>('expressTransaction', 'expressStackTransaction');
    const onKysely = {};
    const onStack = {};
    const native = { own: 'stack tx' };
    slot.set(onKysely, 'kysely-trx');
    slot.set(onStack, 'payonce-view', { tx: native });
    expect(slot.get(onKysely)).toBe('kysely-trx');
    expect(() => slot.getStack(onKysely)).toThrow(InvalidOption);
    expect(() => slot.getStack(onKysely)).toThrow(/expressStackTransaction/);
    expect([slot.get(onStack), slot.getStack(onStack)]).toEqual(['payonce-view', native]);
    slot.clear(onStack);
    expect(() => slot.getStack(onStack)).toThrow(InvalidOption);
    expect(() => slot.get(onStack)).toThrow(/expressTransaction/);
  });
});
