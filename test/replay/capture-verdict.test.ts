import { describe, expect, it } from 'vitest';
import type { CaptureExpectation } from '../../packages/storm/src/replay/capture.js';
import { captureVerdict } from '../../packages/storm/src/replay/capture-verdict.js';
import type { DeliveryResult } from '../../packages/storm/src/replay/replay-report.js';
import { seededShuffle } from '../../packages/storm/src/replay/seeded-shuffle.js';

function answers(...statuses: (number | null)[]): DeliveryResult[] {
  return statuses.map((status, i) => ({
    captureId: 'c',
    copy: i + 1,
    sequence: i,
    status,
    replayed: false,
    problemCode: null,
    bodySha256: status === null ? null : 'x',
    error: status === null ? 'ECONNRESET: other side closed' : null,
    durationMs: 1,
  }));
}

describe('captureVerdict', () => {
  it.each<[CaptureExpectation | null, (number | null)[], string]>([
    ['accepted', [200, 200, 200], 'matched'],
    ['accepted', [200, 409, 204], 'matched'],
    ['accepted', [409, 409], 'contradicted'],
    ['accepted', [200, 500], 'contradicted'],
    ['accepted', [200, 422], 'contradicted'],
    ['accepted', [200, null], 'contradicted'],
    ['accepted', [401], 'contradicted'],
    ['rejected', [401, 400, 413], 'matched'],
    ['rejected', [401, 200], 'contradicted'],
    ['rejected', [401, 409], 'contradicted'],
    ['rejected', [500], 'contradicted'],
    ['rejected', [null], 'contradicted'],
    ['rejected', [], 'contradicted'],
    [null, [500, null], 'unchecked'],
  ])('expect %s with answers %j is %s', (expectation, statuses, verdict) => {
    expect(captureVerdict(expectation, answers(...statuses)).verdict).toBe(verdict);
  });

  it('says what came back', () => {
    expect(captureVerdict('rejected', answers(200, 200, 401))).toEqual({
      verdict: 'contradicted',
      reason: 'expected rejected, got 200 ×2, 401 ×1',
    });
    expect(captureVerdict(null, answers(null)).reason).toBe('error (ECONNRESET: other side closed) ×1');
  });
});

describe('seededShuffle', () => {
  const items = Array.from({ length: 50 }, (_, i) => i);

  it('is a permutation, the same for the same seed, different for another seed', () => {
    const a = seededShuffle(items, 'seed-1');
    expect([...a].sort((x, y) => x - y)).toEqual(items);
    expect(seededShuffle(items, 'seed-1')).toEqual(a);
    expect(seededShuffle(items, 'seed-2')).not.toEqual(a);
    expect(a).not.toEqual(items);
  });

  it('gives the same order for a seed in every version (a printed seed repeats an old run)', () => {
    expect(seededShuffle([1, 2, 3, 4, 5, 6, 7, 8], 'ci')).toEqual([7, 8, 5, 2, 6, 3, 1, 4]);
    expect(seededShuffle(['only'], 'x')).toEqual(['only']);
  });
});
