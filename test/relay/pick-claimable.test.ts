import { describe, expect, it } from 'vitest';
import { pickClaimable } from '../../packages/payonce/src/relay/claim-relay-batch.js';

const NOW = 10_000;
function row(id: string, aggregate: string | null, state: 'queued' | 'waiting' | 'leased' | 'expired') {
  return {
    id,
    topic: 't',
    payload: '{}',
    status: state === 'queued' || state === 'waiting' ? 'queued' : 'running',
    attempts: 1,
    available_at: state === 'waiting' ? NOW + 1 : NOW - 1,
    lease_expires_at: state === 'leased' ? NOW + 1 : state === 'expired' ? NOW - 1 : null,
    created_at: 1,
    aggregate_key: aggregate,
    seq: 1,
  };
}

describe('pickClaimable: one aggregate is never published past a job another relay holds or a retry waits on', () => {
  it('takes claimable jobs in order and stops each aggregate at its first job that is not claimable', () => {
    const picked = pickClaimable(
      [
        row('a1', 'A', 'queued'),
        row('b1', 'B', 'leased'),
        row('b2', 'B', 'queued'),
        row('c1', 'C', 'waiting'),
        row('c2', 'C', 'queued'),
        row('a2', 'A', 'expired'),
        row('n1', null, 'queued'),
        row('n2', null, 'leased'),
        row('n3', null, 'queued'),
        row('a3', 'A', 'queued'),
      ],
      NOW,
      100,
    );
    expect(picked.map((r) => r.id)).toEqual(['a1', 'a2', 'n1', 'n3', 'a3']);
  });

  it('stops at batchSize', () => {
    const rows = ['1', '2', '3'].map((id) => row(id, 'A', 'queued'));
    expect(pickClaimable(rows, NOW, 2).map((r) => r.id)).toEqual(['1', '2']);
  });
});
