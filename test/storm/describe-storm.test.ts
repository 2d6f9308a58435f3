import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../packages/cli/src/demo/free-port.js';
import type { StormAppAdapter, StormAppSetup } from '../../packages/storm/src/app/storm-app-adapter.js';
import { describeStorm, StormScenarioFailed, type StormTestRunner } from '../../packages/storm/src/describe-storm.js';
import { inProcessReferenceApp } from './adapters/reference-app.js';
import { signatureCheckOff } from './faulty-services.js';

// The storm as a user's vitest suite runs it: the reference service started by the adapter factory, scenario 8
// passes, scenario 14 (needs rerunFulfilment, which this adapter lacks) is skipped with its reason at run time.
describeStorm((setup: StormAppSetup) => inProcessReferenceApp(setup), {
  only: [8, 14],
  appUrl: `http://127.0.0.1:${await findFreePort()}`,
  timeoutMs: 15_000,
  runner: { describe, it, beforeAll, afterAll },
});

/** A runner that only records what `describeStorm` registers, so a test can run the hooks and bodies itself. */
function recordingRunner() {
  const tests: {
    name: string;
    skipped: boolean;
    body: (context?: { skip?: (note?: string) => void }) => Promise<void>;
  }[] = [];
  const hooks: { before: (() => Promise<void>)[]; after: (() => Promise<void>)[] } = { before: [], after: [] };
  const suites: string[] = [];
  const it = Object.assign(
    (name: string, body: (typeof tests)[number]['body']) => tests.push({ name, skipped: false, body }),
    { skip: (name: string, body: (typeof tests)[number]['body']) => tests.push({ name, skipped: true, body }) },
  );
  const runner: StormTestRunner = {
    describe: (name, body) => {
      suites.push(name);
      body();
    },
    it,
    beforeAll: (body) => hooks.before.push(body),
    afterAll: (body) => hooks.after.push(body),
  };
  return { runner, tests, hooks, suites };
}

describe('describeStorm', () => {
  it('registers a scenario an adapter object cannot express as a skipped test naming the reason', () => {
    const adapter = { name: 'shop', capabilities: {} } as unknown as StormAppAdapter;
    const { runner, tests, suites } = recordingRunner();
    describeStorm(adapter, { only: [8, 14], runner });
    expect(suites).toEqual(['payonce storm: shop']);
    expect(tests.map((t) => [t.name, t.skipped])).toEqual([
      ['8. same webhook twice', false],
      [
        expect.stringMatching(
          /^14\. .*\(skipped: the app adapter shop lacks jobs: readOrder must return the outbox jobs/,
        ),
        true,
      ],
    ]);
  });

  it('fails a scenario with its reasons and the seed that replays it', async () => {
    const { runner, tests, hooks } = recordingRunner();
    const appUrl = `http://127.0.0.1:${await findFreePort()}`;
    describeStorm((setup) => inProcessReferenceApp(setup, signatureCheckOff), { only: [18], seed: 5, appUrl, runner });
    for (const before of hooks.before) await before();
    try {
      const failure = await tests[0]?.body().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StormScenarioFailed);
      const message = (failure as Error).message;
      expect(message).toMatch(
        /^scenario 18 \(forged event rejected before any business action\) failed \(seed 5; replay: payonce storm --seed 5 --only 18\)/,
      );
      expect(message).toMatch(/the forged event answered 200/);
    } finally {
      for (const after of hooks.after) await after();
    }
  }, 120_000);

  it('without a runner and without globals is a clear error', () => {
    expect(() => describeStorm({ name: 'x' } as unknown as StormAppAdapter)).toThrow(
      /no describe\/it\/beforeAll\/afterAll globals/,
    );
  });
});
