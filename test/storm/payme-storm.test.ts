import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPaymeStorm } from '../../packages/storm/src/payme/index.js';
import { formatPaymeStormTable, paymeStormSummary } from '../../packages/storm/src/payme/payme-storm-table.js';
import { type PaymeStormApp, startPaymeStormApp } from './payme-storm-app.js';

const verdicts = (report: Awaited<ReturnType<typeof runPaymeStorm>>) =>
  Object.fromEntries(report.results.map((r) => [r.id, r.verdict]));

/** The Payme storm against the in-process app on SQLite: a conforming shop passes, broken ones fail by name. */
describe('Payme storm on SQLite', () => {
  let app: PaymeStormApp;
  beforeAll(async () => {
    app = await startPaymeStormApp('sqlite');
  });
  afterAll(async () => app?.close());

  it('passes every scenario it can run; the crash is skipped with the reason', async () => {
    const report = await runPaymeStorm({ target: app.target, timeoutMs: 15_000 });
    const table = formatPaymeStormTable(report);
    expect(report.passed, table).toBe(true);
    expect(verdicts(report)).toEqual({
      1: 'pass',
      2: 'pass',
      3: 'pass',
      4: 'pass',
      5: 'pass',
      6: 'pass',
      7: 'pass',
      8: 'skip',
      9: 'pass',
      10: 'pass',
      11: 'pass',
    });
    expect(table).toMatch(/skip 8: the in-process app shares the storm’s process/);
    const byId = new Map(report.results.map((r) => [r.id, r]));
    expect(byId.get(2)?.counts).toMatchObject({ performs: 1, paidTransitions: 1, fulfilments: 1 });
    expect(byId.get(6)?.counts).toMatchObject({ performs: 0, paidTransitions: 0, fulfilments: 0 });
    expect(byId.get(10)?.orders[0]).toMatchObject({ refunds: 1, targetRefunds: 1, payerTiyin: 0, merchantTiyin: 0 });
    expect(paymeStormSummary(report)).toMatch(/^PASS: 10\/11 Payme scenarios \(1 skipped: 8\)/);
    expect(table).not.toContain(app.target.key);
  });
});

describe('Payme storm against broken shops', () => {
  const broken: PaymeStormApp[] = [];
  afterAll(async () => {
    await Promise.all(broken.map((b) => b.close()));
  });

  it('fails the repeat scenarios of a shop that fulfils on every Perform answered 2', async () => {
    const app = await startPaymeStormApp('sqlite', 'fulfil-every-perform');
    broken.push(app);
    const report = await runPaymeStorm({ target: app.target, only: [2, 4, 6], timeoutMs: 10_000 });
    expect(verdicts(report)).toEqual({ 2: 'fail', 4: 'fail', 6: 'pass' });
    expect(formatPaymeStormTable(report)).toMatch(/FAIL 4: .*fulfilled \d+ times/);
  });

  it('fails the out-of-order and refund scenarios of a shop replaying stale answers', async () => {
    const app = await startPaymeStormApp('sqlite', 'stale-replay');
    broken.push(app);
    const report = await runPaymeStorm({ target: app.target, only: [1, 5, 10], timeoutMs: 10_000 });
    expect(verdicts(report)).toEqual({ 1: 'pass', 5: 'fail', 10: 'fail' });
    const table = formatPaymeStormTable(report);
    expect(table).toMatch(/FAIL 5: Perform after Cancel: expected error -31008/);
    expect(table).toMatch(/FAIL 10: Perform after a cancel after perform: expected error -31008/);
  });

  it('fails the job re-run of a shop whose fulfilment is not guarded by the effect ledger', async () => {
    const app = await startPaymeStormApp('sqlite', 'unguarded-job');
    broken.push(app);
    const report = await runPaymeStorm({ target: app.target, only: [11], timeoutMs: 10_000 });
    expect(report.passed).toBe(false);
    expect(formatPaymeStormTable(report)).toMatch(/FAIL 11: .*fulfilled 2 times/);
  });
});
