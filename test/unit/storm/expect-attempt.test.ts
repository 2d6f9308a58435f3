import { describe, expect, it } from 'vitest';
import type { AppPaymentAnswer } from '../../../packages/storm/src/app/storm-app-adapter.js';
import type { ScenarioContext } from '../../../packages/storm/src/scenario-context.js';
import { expectAttempt } from '../../../packages/storm/src/scenarios/steps.js';

/** The part of a scenario's context `expectAttempt` uses: the failures and notes it records. */
function recorder() {
  const failures: string[] = [];
  const notes: string[] = [];
  const ctx = {
    expect(condition: boolean, reason: string) {
      if (!condition) failures.push(reason);
      return condition;
    },
    note(text: string) {
      notes.push(text);
    },
  } as unknown as ScenarioContext;
  return { ctx, failures, notes };
}

const answer = (outcome: AppPaymentAnswer['outcome'], attemptId: string | null, status = 200): AppPaymentAnswer => ({
  status,
  headers: {},
  text: JSON.stringify({ outcome, attemptId }),
  json: { outcome, attemptId },
  attemptId,
  attemptStatus: attemptId === null ? null : 'pending',
  providerPaymentId: null,
  outcome,
});

// Found by `payonce storm --repeat 20` on examples/storm-nestjs-prisma: in scenario 2 the second tab locked the order
// after the first tab's payment webhook had marked it paid, and the app answered `already-paid` naming no attempt.
describe('expectAttempt', () => {
  it('accepts an already-paid answer without an attempt from a checkout raced with another', () => {
    const { ctx, failures, notes } = recorder();
    expect(expectAttempt(ctx, answer('already-paid', null), 'tab 2', true)).toBeNull();
    expect(failures).toEqual([]);
    expect(notes).toEqual(["tab 2: already paid by the other checkout's payment"]);
  });

  it('fails a lone checkout that names no attempt, already-paid or not', () => {
    for (const outcome of ['already-paid', 'created', null] as const) {
      const { ctx, failures } = recorder();
      expectAttempt(ctx, answer(outcome, null), 'checkout');
      expect(failures).toEqual([expect.stringMatching(/^checkout named no attempt/)]);
    }
  });

  it('fails a raced checkout that names no attempt and does not say already-paid, and any non-2xx', () => {
    const { ctx, failures } = recorder();
    expectAttempt(ctx, answer('created', null), 'tab 1', true);
    expectAttempt(ctx, answer('already-paid', null, 409), 'tab 2', true);
    expect(failures).toEqual([
      expect.stringMatching(/^tab 1 named no attempt/),
      expect.stringMatching(/^tab 2 answered/),
    ]);
  });

  // A user's correct app answered its pay route 202 for an unknown outcome and failed scenario 15 with only
  // `checkout with no provider answer answered 202 created unknown`.
  it('accepts 202 (accepted, outcome unknown) like 200 and 201 when the body names the attempt', () => {
    for (const status of [200, 201, 202]) {
      const { ctx, failures } = recorder();
      expect(expectAttempt(ctx, answer('created', 'pa_1', status), 'checkout')).toBe('pa_1');
      expect(failures, `status ${status}`).toEqual([]);
    }
    const { ctx, failures } = recorder();
    expectAttempt(ctx, answer('created', null, 202), 'checkout');
    expect(failures).toEqual([expect.stringMatching(/^checkout named no attempt/)]);
  });

  it('fails any other status, saying which statuses are accepted', () => {
    for (const status of [204, 302, 409, 500]) {
      const { ctx, failures } = recorder();
      expectAttempt(ctx, answer('created', 'pa_1', status), 'checkout with no provider answer');
      expect(failures).toEqual([
        `checkout with no provider answer answered ${status} created pending, expected 200, 201 or 202 naming the attempt`,
      ]);
    }
  });

  it('returns the attempt a checkout names', () => {
    const { ctx, failures } = recorder();
    expect(expectAttempt(ctx, answer('existing', 'pa_1'), 'tab 1', true)).toBe('pa_1');
    expect(failures).toEqual([]);
  });
});
