import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../../packages/payonce/src/outbox/backoff.js';
import {
  ACTIVE_ATTEMPT_STATUSES,
  ATTEMPT_STATUSES,
  type AttemptStatus,
  isActiveAttempt,
  isTerminalAttempt,
  nextAttemptStatus,
} from '../../../packages/payonce/src/payments/attempt-status.js';
import { InvalidMoney } from '../../../packages/payonce/src/payments/invalid-money.js';
import { checkMoney } from '../../../packages/payonce/src/payments/money.js';
import {
  nextOrderStatus,
  ORDER_STATUSES,
  type OrderStatus,
} from '../../../packages/payonce/src/payments/order-status.js';
import type { Transition } from '../../../packages/payonce/src/payments/transition.js';

describe('nextAttemptStatus', () => {
  it.each<[AttemptStatus, AttemptStatus, Transition<AttemptStatus>['kind']]>([
    ['creating', 'pending', 'move'],
    ['creating', 'requires_action', 'move'],
    ['creating', 'succeeded', 'move'],
    ['creating', 'failed', 'move'],
    ['creating', 'cancelled', 'move'],
    ['creating', 'unknown', 'move'],
    ['pending', 'requires_action', 'move'],
    ['pending', 'succeeded', 'move'],
    ['pending', 'failed', 'move'],
    ['pending', 'cancelled', 'move'],
    ['requires_action', 'succeeded', 'move'],
    ['requires_action', 'failed', 'move'],
    ['unknown', 'pending', 'move'],
    ['unknown', 'succeeded', 'move'],
    ['unknown', 'failed', 'move'],
    ['pending', 'pending', 'noop'],
    ['succeeded', 'succeeded', 'noop'],
    ['succeeded', 'pending', 'ignored'],
    ['succeeded', 'failed', 'ignored'],
    ['succeeded', 'unknown', 'ignored'],
    ['failed', 'succeeded', 'ignored'],
    ['failed', 'pending', 'ignored'],
    ['cancelled', 'succeeded', 'ignored'],
    ['requires_action', 'pending', 'ignored'],
    ['pending', 'creating', 'ignored'],
    ['pending', 'unknown', 'ignored'],
    ['unknown', 'creating', 'ignored'],
  ])('%s → %s is %s', (from, to, kind) => {
    const transition = nextAttemptStatus(from, to);
    expect(transition.kind).toBe(kind);
    if (transition.kind === 'move') expect(transition.to).toBe(to);
    if (transition.kind === 'ignored') expect(transition).toEqual({ kind: 'ignored', from, to });
  });

  it('never moves out of a terminal status and never back into creating', () => {
    for (const from of ATTEMPT_STATUSES) {
      for (const to of ATTEMPT_STATUSES) {
        const kind = nextAttemptStatus(from, to).kind;
        if (isTerminalAttempt(from) && from !== to) expect(kind, `${from} → ${to}`).toBe('ignored');
        if (to === 'creating' && from !== to) expect(kind, `${from} → ${to}`).toBe('ignored');
      }
    }
  });

  it('active statuses are exactly the non-terminal ones', () => {
    expect([...ACTIVE_ATTEMPT_STATUSES].sort()).toEqual(ATTEMPT_STATUSES.filter((s) => !isTerminalAttempt(s)).sort());
    expect(isActiveAttempt('unknown')).toBe(true);
    expect(isActiveAttempt('failed')).toBe(false);
  });
});

describe('nextOrderStatus', () => {
  it.each<[OrderStatus, OrderStatus, Transition<OrderStatus>['kind']]>([
    ['draft', 'awaiting_payment', 'move'],
    ['draft', 'cancelled', 'move'],
    ['awaiting_payment', 'paid', 'move'],
    ['awaiting_payment', 'cancelled', 'move'],
    ['paid', 'fulfilling', 'move'],
    ['paid', 'refunded', 'move'],
    ['fulfilling', 'completed', 'move'],
    ['completed', 'refunded', 'move'],
    ['paid', 'paid', 'noop'],
    ['paid', 'awaiting_payment', 'ignored'],
    ['paid', 'cancelled', 'ignored'],
    ['completed', 'fulfilling', 'ignored'],
    ['cancelled', 'paid', 'ignored'],
    ['refunded', 'paid', 'ignored'],
    ['refunded', 'completed', 'ignored'],
    ['awaiting_payment', 'refunded', 'ignored'],
  ])('%s → %s is %s', (from, to, kind) => {
    expect(nextOrderStatus(from, to).kind).toBe(kind);
  });

  it('cancelled and refunded are terminal', () => {
    for (const to of ORDER_STATUSES) {
      if (to !== 'cancelled') expect(nextOrderStatus('cancelled', to).kind).toBe('ignored');
      if (to !== 'refunded') expect(nextOrderStatus('refunded', to).kind).toBe('ignored');
    }
  });
});

describe('backoffDelayMs', () => {
  it.each([
    [1, 0, 500],
    [1, 0.999_999, 1_000],
    [2, 0, 1_000],
    [3, 0.5, 3_000],
    [10, 0, 30_000],
    [10, 0.999_999, 60_000],
  ])('attempt %i with random %f → %i ms (base 1 000, max 60 000)', (attempt, r, expected) => {
    expect(backoffDelayMs(attempt, 1_000, 60_000, () => r)).toBe(expected);
  });

  it('grows exponentially and stays within [cap/2, cap]', () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const cap = Math.min(60_000, 1_000 * 2 ** (attempt - 1));
      for (const r of [0, 0.3, 0.7, 0.999]) {
        const delay = backoffDelayMs(attempt, 1_000, 60_000, () => r);
        expect(delay).toBeGreaterThanOrEqual(cap / 2);
        expect(delay).toBeLessThanOrEqual(cap);
      }
    }
  });
});

describe('checkMoney', () => {
  it('accepts integer minor units and an ISO-4217 code', () => {
    expect(checkMoney({ amountMinor: 1999, currency: 'EUR' })).toEqual({ amountMinor: 1999, currency: 'EUR' });
  });
  it.each([
    [19.99, 'EUR'],
    [0, 'EUR'],
    [-5, 'EUR'],
    [Number.MAX_SAFE_INTEGER + 1, 'EUR'],
    [100, 'eur'],
    [100, 'EURO'],
  ])('rejects %s %s', (amountMinor, currency) => {
    expect(() => checkMoney({ amountMinor, currency })).toThrow(InvalidMoney);
  });
});
