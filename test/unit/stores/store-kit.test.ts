import { describe, expect, it } from 'vitest';
import { requestKey } from '../../../packages/payonce/src/core/request-key.js';
import { firstClaimReceipt, ReceiptWaiters, receiptIdOf } from '../../../packages/payonce/src/stores/store-kit.js';

describe('payonce/store-kit', () => {
  it('receiptIdOf is injective although provider and external id may contain ":" (the byte length leads)', () => {
    expect(receiptIdOf(requestKey('a:b', 'c'))).toBe('3:a:b:c');
    expect(receiptIdOf(requestKey('a', 'b:c'))).toBe('1:a:b:c');
    expect(receiptIdOf(requestKey('é', 'x'))).toBe('2:é:x'); // UTF-8 bytes, not UTF-16 units
    expect(receiptIdOf(requestKey('stripe', 'evt_A'))).not.toBe(receiptIdOf(requestKey('stripe', 'evt_a')));
  });

  it('firstClaimReceipt is a processing receipt at attempt 1, claimed at the given time', () => {
    const receipt = firstClaimReceipt(requestKey('stripe', 'evt_1'), 1_000, 'f');
    expect(receipt).toMatchObject({
      status: 'processing',
      attempts: 1,
      claimedAtMs: 1_000,
      finishedAtMs: null,
      fingerprint: 'f',
    });
  });

  it('ReceiptWaiters wakes the watch of one id and leaves the others waiting', async () => {
    const waiters = new ReceiptWaiters();
    const woken = waiters.watch(receiptIdOf(requestKey('p', 'a')));
    const other = waiters.watch(receiptIdOf(requestKey('p', 'b')));
    waiters.wake(receiptIdOf(requestKey('p', 'a')));
    await woken.changed;
    expect(waiters.size).toBe(1);
    other.close();
    expect(waiters.watching).toBe(false);
  });
});
