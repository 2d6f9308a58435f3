import { describe, expect, it } from 'vitest';
import { type ConnectionLease, inLeasedTransaction } from '../../../packages/payonce/src/tx/leased-transaction.js';

// The lease pattern shared by pgTransactions and mysql2Transactions, with a lease that records its calls: what runs
// in which order, which error reaches the caller, and when a connection is given back broken.

interface Script {
  beginFails?: boolean;
  commitFails?: boolean;
  rollbackFails?: boolean;
  watched?: boolean;
}

/** A lease of one connection (`conn-1`) recording every call; `lost(error)` plays the driver reporting it lost. */
function recordingLease(script: Script = {}) {
  const calls: string[] = [];
  let report: ((error: Error) => void) | undefined;
  const step = async (name: string, fails: boolean | undefined) => {
    calls.push(name);
    if (fails) throw new Error(`${name} failed`);
  };
  const lease: ConnectionLease<string> = {
    lend: async () => {
      calls.push('lend');
      return 'conn-1';
    },
    begin: () => step('begin', script.beginFails),
    commit: () => step('commit', script.commitFails),
    rollback: () => step('rollback', script.rollbackFails),
    giveBack: (connection, broken) => calls.push(`giveBack ${connection} ${broken?.message ?? 'healthy'}`),
  };
  if (script.watched) {
    lease.watch = (_connection, broken) => {
      calls.push('watch');
      report = broken;
      return () => {
        calls.push('unwatch');
        report = undefined;
      };
    };
  }
  return { calls, lease, lost: (error: Error) => report?.(error) };
}

describe('inLeasedTransaction', () => {
  it('begins, runs the work on the lent connection, commits, gives it back healthy and answers the result', async () => {
    const { calls, lease } = recordingLease();
    const result = await inLeasedTransaction(lease, async (connection) => {
      calls.push(`work on ${connection}`);
      return 'done';
    });
    expect(result).toBe('done');
    expect(calls).toEqual(['lend', 'begin', 'work on conn-1', 'commit', 'giveBack conn-1 healthy']);
  });

  it('rolls back a throw of the work, rethrows it, and gives the connection back healthy', async () => {
    const { calls, lease } = recordingLease();
    await expect(
      inLeasedTransaction(lease, async () => {
        throw new Error('declined');
      }),
    ).rejects.toThrow('declined');
    expect(calls).toEqual(['lend', 'begin', 'rollback', 'giveBack conn-1 healthy']);
  });

  it('rolls back a failed COMMIT and rethrows its error', async () => {
    const { calls, lease } = recordingLease({ commitFails: true });
    await expect(inLeasedTransaction(lease, async () => 'done')).rejects.toThrow('commit failed');
    expect(calls).toEqual(['lend', 'begin', 'commit', 'rollback', 'giveBack conn-1 healthy']);
  });

  it('runs no work when BEGIN fails, and rethrows the BEGIN error', async () => {
    const { calls, lease } = recordingLease({ beginFails: true });
    let ran = false;
    await expect(
      inLeasedTransaction(lease, async () => {
        ran = true;
      }),
    ).rejects.toThrow('begin failed');
    expect(ran).toBe(false);
    expect(calls).toEqual(['lend', 'begin', 'rollback', 'giveBack conn-1 healthy']);
  });

  it('gives the connection back broken when its ROLLBACK fails, and rethrows the work error, not the rollback one', async () => {
    const { calls, lease } = recordingLease({ rollbackFails: true });
    await expect(
      inLeasedTransaction(lease, async () => {
        throw new Error('declined');
      }),
    ).rejects.toThrow('declined');
    expect(calls).toEqual(['lend', 'begin', 'rollback', 'giveBack conn-1 rollback failed']);
  });

  it('gives the connection back broken when the driver reported it lost while lent, and stops watching first', async () => {
    const { calls, lease, lost } = recordingLease({ watched: true });
    await expect(
      inLeasedTransaction(lease, async () => {
        lost(new Error('connection terminated'));
        throw new Error('statement failed');
      }),
    ).rejects.toThrow('statement failed');
    expect(calls).toEqual(['lend', 'watch', 'begin', 'rollback', 'unwatch', 'giveBack conn-1 connection terminated']);
  });

  it('lends nothing else and gives nothing back when lending fails', async () => {
    const { calls, lease } = recordingLease();
    lease.lend = async () => {
      calls.push('lend');
      throw new Error('pool exhausted');
    };
    await expect(inLeasedTransaction(lease, async () => 'done')).rejects.toThrow('pool exhausted');
    expect(calls).toEqual(['lend']);
  });
});
