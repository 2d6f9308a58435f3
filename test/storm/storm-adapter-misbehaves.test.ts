import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServiceAdapter } from '../../packages/storm/src/app/reference-service-adapter.js';
import type { StormAppAdapter } from '../../packages/storm/src/app/storm-app-adapter.js';
import { repeatStorm } from '../../packages/storm/src/repeat-storm.js';
import { runStorm } from '../../packages/storm/src/run-storm.js';
import { type StormWorld, startStormWorld } from './storm-harness.js';

/** The storm never waits on an adapter without a bound, and a failing close() does not take the verdicts with it. */
describe('an adapter that hangs or fails', () => {
  let world: StormWorld;
  beforeAll(async () => {
    world = await startStormWorld();
  }, 60_000);
  afterAll(() => world?.close());

  const base = () => referenceServiceAdapter({ target: world.service.url, adminToken: world.adminToken });

  it('fails the scenario whose readOrder never answers, naming the call, and the run ends', async () => {
    const adapter: StormAppAdapter = { ...base(), name: 'readOrder hangs', readOrder: () => new Promise(() => {}) };
    // A budget no loaded host's real requests come near, so the only thing that can outlast it is the hang.
    const report = await runStorm({ app: adapter, provider: world.sandbox.url, only: [7], timeoutMs: 8_000 });
    expect(report.results.map((r) => r.verdict)).toEqual(['fail']);
    expect(report.results[0]?.reasons.join('\n')).toMatch(/the adapter's readOrder did not answer within 9000 ms/);
  }, 180_000);

  it('shows no credential an adapter’s error carries, in reasons, notes or order problems', async () => {
    const secrets = ['sk_test_placeholderKey123', 'whsec_placeholderSecret456'];
    const adapter: StormAppAdapter = {
      ...base(),
      name: 'readOrder leaks',
      readOrder: async () => {
        throw new Error(`cannot read the order with ${secrets[0]} (webhook secret ${secrets[1]})`);
      },
    };
    const report = await runStorm({ app: adapter, provider: world.sandbox.url, only: [8], timeoutMs: 15_000 });
    expect(report.results.map((r) => r.verdict)).toEqual(['fail']);
    const text = JSON.stringify(report);
    expect(text).toMatch(/cannot read the order with \[redacted\]/);
    for (const secret of secrets) expect(text.includes(secret), `${secret} in the report`).toBe(false);
  }, 60_000);

  it('keeps the verdicts when close() throws, and says why in closeError', async () => {
    const adapter: StormAppAdapter = {
      ...base(),
      name: 'close throws',
      close: async () => {
        throw new Error('pool already ended');
      },
    };
    const report = await runStorm({ app: adapter, provider: world.sandbox.url, only: [8], timeoutMs: 15_000 });
    expect(report.results.map((r) => [r.id, r.verdict])).toEqual([[8, 'pass']]);
    expect(report.closeError).toBe('pool already ended');
  }, 60_000);

  it('bounds a close() that never returns by the per-call timeout', async () => {
    const adapter: StormAppAdapter = { ...base(), name: 'close hangs', close: () => new Promise(() => {}) };
    const report = await runStorm({ app: adapter, provider: world.sandbox.url, only: [8], timeoutMs: 15_000 });
    expect(report.results.map((r) => r.verdict)).toEqual(['pass']);
    expect(report.closeError).toMatch(/close did not answer within 16000 ms/);
  }, 90_000);

  it('keeps the runs before a repeat that cannot run, saying at which run and why', async () => {
    const adapter = base();
    let healthChecks = 0;
    const goesAway: StormAppAdapter = {
      ...adapter,
      name: 'gone after one run',
      async health() {
        healthChecks += 1;
        if (healthChecks > 1) throw new Error('the app is gone');
        return adapter.health();
      },
    };
    const report = await repeatStorm({
      app: goesAway,
      provider: world.sandbox.url,
      only: [8],
      times: 3,
      timeoutMs: 15_000,
    });
    expect(report.runs.map((run) => run.results.map((r) => r.verdict))).toEqual([['pass']]);
    expect(report.stopped).toEqual({ atRun: 2, reason: expect.stringContaining('the app is gone') });
    expect(report.passed).toBe(false);
  }, 60_000);
});
