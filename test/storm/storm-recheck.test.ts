import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServiceAdapter } from '../../packages/storm/src/app/reference-service-adapter.js';
import type { StormAppAdapter } from '../../packages/storm/src/app/storm-app-adapter.js';
import { runStorm } from '../../packages/storm/src/run-storm.js';
import { type StormWorld, startStormWorld } from './storm-harness.js';

/**
 * An app that answers the webhook at once and ships in the background can repeat the shipment after its scenario
 * concluded. Simulated deterministically: the adapter reports a second fulfilment once the storm said the scenario
 * finished, as such an app's late job would make it.
 */
describe('the storm judges every order again after the run', () => {
  let world: StormWorld;
  beforeAll(async () => {
    world = await startStormWorld();
  }, 60_000);
  afterAll(() => world?.close());

  function lateShipment(): { adapter: StormAppAdapter; finished: () => void } {
    const base = referenceServiceAdapter({ target: world.service.url, adminToken: world.adminToken });
    let concluded = false;
    const adapter: StormAppAdapter = {
      ...base,
      name: 'ships again in the background',
      async readOrder(call) {
        const state = await base.readOrder(call);
        return concluded && state.fulfilments === 1 ? { ...state, fulfilments: 2 } : state;
      },
    };
    return { adapter, finished: () => (concluded = true) };
  }

  it('fails a scenario whose order was shipped again after the scenario concluded, saying so', async () => {
    const { adapter, finished } = lateShipment();
    const report = await runStorm({
      app: adapter,
      provider: world.sandbox.url,
      only: [8],
      settleMs: 0,
      timeoutMs: 15_000,
      onProgress: (event) => {
        if (event.kind === 'finished') finished();
      },
    });
    const [result] = report.results;
    expect(report.passed).toBe(false);
    expect(result?.verdict).toBe('fail');
    expect(result?.reasons.some((r) => r.startsWith('after the run: ') && /fulfil/i.test(r))).toBe(true);
    expect(result?.counts.fulfilments).toBe(2);
  }, 60_000);

  it('passes the same scenario when nothing changes after it concluded', async () => {
    const adapter = referenceServiceAdapter({ target: world.service.url, adminToken: world.adminToken });
    const report = await runStorm({ app: adapter, provider: world.sandbox.url, only: [8], timeoutMs: 15_000 });
    expect(report.results.map((r) => [r.id, r.verdict, r.reasons])).toEqual([[8, 'pass', []]]);
  }, 60_000);

  it('fails a scenario whose order the app cannot show any more when it is judged again', async () => {
    const base = referenceServiceAdapter({ target: world.service.url, adminToken: world.adminToken });
    let concluded = false;
    const forgets: StormAppAdapter = {
      ...base,
      name: 'forgets after the scenario',
      async readOrder(call) {
        if (concluded) throw new Error('no such order (the app lost it)');
        return base.readOrder(call);
      },
    };
    const report = await runStorm({
      app: forgets,
      provider: world.sandbox.url,
      only: [8],
      settleMs: 0,
      timeoutMs: 15_000,
      onProgress: (event) => {
        if (event.kind === 'finished') concluded = true;
      },
    });
    const [result] = report.results;
    expect(result?.verdict).toBe('fail');
    expect(result?.reasons.join('\n')).toMatch(
      /after the run: order .* could not be read again \(no such order.*\): the storm cannot tell whether an effect repeated/,
    );
    expect(result?.counts.fulfilments).toBe(1);
  }, 60_000);
});
