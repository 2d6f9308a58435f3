import { describe, expect, it } from 'vitest';
import {
  checkOrderState,
  InvalidOrderState,
  MAX_EFFECT_COUNT,
} from '../../../packages/storm/src/app/order-state-check.js';
import type { StormOrderState } from '../../../packages/storm/src/app/storm-app-adapter.js';

const good: StormOrderState = {
  status: 'paid',
  amountMinor: 1_000,
  currency: 'EUR',
  paidTransitions: 1,
  fulfilments: 1,
};

/** `good` with one field replaced, as a careless adapter would return it. */
const withField = (field: string, value: unknown) => ({ ...good, [field]: value }) as unknown as StormOrderState;

describe("the adapter's readOrder answer", () => {
  it('passes a well-formed state through unchanged', () => {
    expect(checkOrderState('o-1', good)).toBe(good);
    expect(
      checkOrderState('o-1', { ...good, refunds: 0, attempts: [], jobs: [], journal: [], deliveries: [] }),
    ).toBeTruthy();
  });

  it.each([
    ['paidTransitions', undefined, /paidTransitions undefined: expected a whole number from 0 to 10000/],
    ['paidTransitions', '2', /paidTransitions "2": expected a whole number/],
    ['fulfilments', Number.NaN, /fulfilments NaN/],
    ['fulfilments', 1e9, /fulfilments 1000000000/],
    ['fulfilments', -1, /fulfilments -1/],
    ['refunds', 1.5, /refunds 1.5/],
    ['status', 'shipped', /status "shipped": expected one of draft, awaiting_payment, paid/],
    ['amountMinor', '1000', /amountMinor "1000"/],
    ['currency', 'euro', /currency "euro"/],
    ['jobs', 'none', /jobs "none": expected an array/],
  ])('refuses %s = %s, naming the field, the value and the order', (field, value, message) => {
    const check = () => checkOrderState('o-7', withField(field, value));
    expect(check).toThrow(InvalidOrderState);
    expect(check).toThrow(message);
    expect(check).toThrow(/readOrder for order o-7/);
  });

  it('takes counts up to the limit, so a broken app that repeats an effect many times is still judged', () => {
    expect(checkOrderState('o-1', { ...good, fulfilments: MAX_EFFECT_COUNT }).fulfilments).toBe(MAX_EFFECT_COUNT);
  });
});
