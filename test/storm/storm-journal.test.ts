import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServiceAdapter } from '../../packages/storm/src/app/reference-service-adapter.js';
import type { StormAppAdapter } from '../../packages/storm/src/app/storm-app-adapter.js';
import { runStorm } from '../../packages/storm/src/run-storm.js';
import type { StormReport } from '../../packages/storm/src/storm-report.js';
import { eventMoneyUnchecked } from './faulty-services.js';
import { type StormWorld, startStormWorld } from './storm-harness.js';

const verdicts = (report: StormReport) => Object.fromEntries(report.results.map((r) => [r.id, r.verdict]));
const reasons = (report: StormReport, id: number) => report.results.find((r) => r.id === id)?.reasons.join('\n');

/** The reference service through its adapter, without the `journal` capability (as the example shops). */
function withoutJournal(world: StormWorld): StormAppAdapter {
  const reference = referenceServiceAdapter({ target: world.service.url, timeoutMs: 15_000 });
  const { journal: _journal, ...capabilities } = reference.capabilities ?? {};
  return { ...reference, name: 'no journal', capabilities };
}

// Found by an attacker: scenario 11 was skipped without the journal capability although only its last check reads
// the journal, and an adapter claiming the capability with an empty journal passed 11 and 18 checking nothing.
describe('scenarios 11 and 18 and the journal the adapter returns', () => {
  let world: StormWorld;
  beforeAll(async () => {
    world = await startStormWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('runs scenario 11 without the journal capability, skipping only its journal check (noted)', async () => {
    const report = await runStorm({ app: withoutJournal(world), provider: world.sandbox.url, only: [11, 18] });
    expect(verdicts(report)).toEqual({ 11: 'pass', 18: 'skip' });
    expect(report.results[0]?.notes.join('\n')).toMatch(
      /journal check skipped \(the adapter has no journal capability\)/,
    );
    expect(report.results[0]?.orders.map((o) => o.charges)).toEqual([1, 1]);
  }, 60_000);

  it('fails 11 and 18 when the adapter claims a journal and returns empty ones', async () => {
    const reference = referenceServiceAdapter({ target: world.service.url, timeoutMs: 15_000 });
    const empty: StormAppAdapter = {
      ...reference,
      name: 'empty journal',
      readOrder: async (call) => ({ ...(await reference.readOrder(call)), journal: [], deliveries: [] }),
    };
    const report = await runStorm({ app: empty, provider: world.sandbox.url, only: [11, 18] });
    expect(verdicts(report)).toEqual({ 11: 'fail', 18: 'fail' });
    expect(reasons(report, 11)).toMatch(
      /^the app's payment journal \(0 entries\) does not show the genuine success event evt_\w+ it acknowledged/,
    );
    expect(reasons(report, 18)).toMatch(/payment journal \(0 entries\)[\s\S]*delivery journal \(0 entries\)/);
  }, 60_000);
});

describe('scenario 11 without a journal still catches an app that pays whatever a signed event names', () => {
  it('fails the reference service with event amount, currency and order unchecked', async () => {
    const world = await startStormWorld(eventMoneyUnchecked);
    try {
      const report = await runStorm({ app: withoutJournal(world), provider: world.sandbox.url, only: [11] });
      expect(verdicts(report)).toEqual({ 11: 'fail' });
      expect(reasons(report, 11)).toMatch(/after the foreign events order \w+ is (paid|fulfilling|completed)/);
    } finally {
      await world.close();
    }
  }, 60_000);
});
