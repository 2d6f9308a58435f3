import { randomBytes } from 'node:crypto';
import { createSandbox, type Sandbox } from '@payonce/sandbox/internal/create-sandbox.js';
import { newSigningSecret } from '@payonce/sandbox/internal/webhook-signer.js';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { missingCapability } from './app/missing-capability.js';
import type { StormAppAdapter, StormAppAdapterModule, StormAppSetup } from './app/storm-app-adapter.js';
import { keptOpen } from './kept-open.js';
import { runStorm, selectScenarios } from './run-storm.js';
import type { ScenarioResult } from './scenario.js';
import { newStormSeed } from './storm-random.js';
import { stormReplayCommand } from './storm-replay.js';

/** The context vitest passes a test body: its `skip(note)` skips the running test. Jest passes none. */
type TestContext = { skip?: (note?: string) => void };

/**
 * A test body as vitest and jest call it: vitest passes a {@link TestContext}, jest nothing. `describeStorm`'s bodies
 * declare no parameter (`(...args) =>`, `length` 0): jest takes a body that declares one for a `done`-callback test
 * and waits for `done()` until its timeout.
 */
type TestBody = (...args: [context?: TestContext]) => Promise<void>;

/**
 * The test runner's functions `describeStorm` registers with: vitest's `describe`, `it`, `beforeAll` and
 * `afterAll` exports and jest's globals have this shape.
 */
export interface StormTestRunner {
  describe(name: string, body: () => void): void;
  it: ((name: string, body: TestBody, timeoutMs?: number) => void) & {
    skip(name: string, body: TestBody): void;
  };
  beforeAll(body: () => Promise<void>, timeoutMs?: number): void;
  afterAll(body: () => Promise<void>, timeoutMs?: number): void;
}

/** Options of {@link describeStorm}. */
export interface DescribeStormOptions {
  /** Scenario numbers to register (1…22). @default all */
  readonly only?: readonly number[];
  /** Seed of every test's random choices and of the sandbox's fault draws. @default a fresh one (in failure messages) */
  readonly seed?: number;
  /** Budget of one scenario in ms (see `runStorm`). @default 30_000 */
  readonly timeoutMs?: number;
  /** The app's base URL, given to an adapter factory as `setup.appUrl`. @default `http://127.0.0.1:3000` */
  readonly appUrl?: string;
  /** How long the sandbox and the app get to start and be healthy, ms. @default 60_000 */
  readonly setupTimeoutMs?: number;
  /**
   * The suite's name. @default `payonce storm: <adapter name>` for an adapter object; `payonce storm: app` for a
   * factory (the suite is named when it is registered, before `beforeAll` runs the factory and its adapter has a
   * name): pass `name` to name it.
   */
  readonly name?: string;
  /**
   * What a failure's replay command names (`payonce storm --adapter FILE --start CMD --seed S --only N`): the
   * adapter file as `payonce storm --adapter` takes it and the command that starts the app; without `start`, the
   * command names `--url <appUrl>` (a factory that starts the app itself). @default none: the command then has
   * `FILE` and `CMD` to fill in, and says so
   */
  readonly replay?: { readonly adapter: string; readonly start?: string };
  /** The runner's functions. @default the `describe`, `it`, `beforeAll`, `afterAll` globals (jest; vitest with `globals: true`) */
  readonly runner?: StormTestRunner;
}

/**
 * A scenario failed under `describeStorm`: the message carries its reasons, the seed and `replay`, the
 * `payonce storm` command that replays it (see `DescribeStormOptions.replay`).
 */
export class StormScenarioFailed extends Error {
  constructor(
    readonly result: ScenarioResult,
    readonly seed: number,
    readonly replay: string = stormReplayCommand(seed, result.id),
  ) {
    super(
      [
        `scenario ${result.id} (${result.name}) failed (seed ${seed})`,
        `replay: ${replay}`,
        ...result.reasons.map((r) => `  - ${r}`),
        `criterion: ${result.criterion}`,
      ].join('\n'),
    );
    this.name = 'StormScenarioFailed';
  }
}

function runnerOf(given: StormTestRunner | undefined): StormTestRunner {
  if (given !== undefined) return given;
  const g = globalThis as Partial<StormTestRunner>;
  if (g.describe === undefined || g.it === undefined || g.beforeAll === undefined || g.afterAll === undefined) {
    throw new InvalidOption(
      'runner',
      'no describe/it/beforeAll/afterAll globals: pass { runner: { describe, it, beforeAll, afterAll } } (vitest without globals)',
    );
  }
  return g as StormTestRunner;
}

async function healthy(app: StormAppAdapter, budgetMs: number): Promise<void> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    try {
      await app.health();
      return;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Registers the storm's scenarios as tests of the user's own suite (vitest or jest): one `describe` with one test
 * per scenario (`8. same webhook twice`), all sharing one sandbox provider (started in `beforeAll`, Stripe-shaped,
 * as `payonce storm --adapter` starts it) and one app adapter (`adapterOrFactory`: the adapter, or the factory an
 * adapter file default-exports, called once with the sandbox's URL, webhook secret and API key; closed in
 * `afterAll`). A scenario the adapter cannot express is a skipped test: registered as skipped with the reason in its
 * name when the adapter object is given, else skipped at run time through the runner's `context.skip(reason)`
 * (vitest); a runner without it (jest) fails the test with the reason rather than pass it. A failed scenario throws
 * {@link StormScenarioFailed}, whose message has its reasons, the seed and the `payonce storm` command that replays
 * it (`options.replay` fills in the adapter file and start command). The app must call the sandbox at
 * `setup.sandboxUrl` (docs/storm-your-app.md).
 * @throws {InvalidOption} no runner (no globals and no `runner`), a bad `only`, `seed` or `timeoutMs`.
 * @example describeStorm((setup) => myAdapter(setup), { only: [1, 8, 9], runner: { describe, it, beforeAll, afterAll } });
 */
export function describeStorm(adapterOrFactory: StormAppAdapterModule, options: DescribeStormOptions = {}): void {
  const runner = runnerOf(options.runner);
  const scenarios = selectScenarios(options.only);
  const seed = options.seed ?? newStormSeed();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const setupMs = options.setupTimeoutMs ?? 60_000;
  const known = typeof adapterOrFactory === 'function' ? null : adapterOrFactory;
  const appUrl = options.appUrl ?? 'http://127.0.0.1:3000';
  const replayOf = (id: number) =>
    stormReplayCommand(seed, id, options.replay === undefined ? undefined : { ...options.replay, appUrl });
  let sandbox: Sandbox | null = null;
  let app: StormAppAdapter | null = null;
  runner.describe(options.name ?? `payonce storm: ${known?.name ?? 'app'}`, () => {
    runner.beforeAll(async () => {
      const webhookSecret = newSigningSecret('stripe');
      sandbox = await createSandbox({
        timeScale: 0.001,
        signing: { scheme: 'stripe', secret: webhookSecret },
        deliveryTimeoutMs: 5_000,
        serveSecrets: true,
      });
      const setup: StormAppSetup = {
        appUrl,
        sandboxUrl: sandbox.url,
        webhookSecret,
        apiKey: `sk_test_storm_${randomBytes(12).toString('hex')}`,
      };
      app = typeof adapterOrFactory === 'function' ? await adapterOrFactory(setup) : adapterOrFactory;
      await healthy(app, setupMs);
      sandbox.controls.setWebhookUrl(app.webhookUrl('stripe'));
    }, setupMs + 10_000);
    runner.afterAll(async () => {
      await app?.close?.();
      await sandbox?.close();
    }, 60_000);
    for (const scenario of scenarios) {
      const title = `${scenario.id}. ${scenario.name}`;
      const skip = known === null ? null : missingCapability(known, scenario.needs ?? []);
      if (skip !== null) {
        runner.it.skip(`${title} (${skip})`, async () => {});
        continue;
      }
      runner.it(
        title,
        async (...args: [context?: TestContext]) => {
          const [context] = args;
          if (app === null || sandbox === null) throw new Error('the storm suite did not start (see beforeAll)');
          const report = await runStorm({
            app: keptOpen(app),
            provider: sandbox.url,
            only: [scenario.id],
            seed,
            timeoutMs,
          });
          const result = report.results[0];
          if (result === undefined) throw new Error(`scenario ${scenario.id} did not run`);
          if (result.verdict === 'skip') {
            const reason = result.reasons.join('; ');
            if (context?.skip === undefined) throw new Error(`${title} cannot run against this app: ${reason}`);
            context.skip(reason);
            return;
          }
          if (result.verdict === 'fail') throw new StormScenarioFailed(result, seed, replayOf(scenario.id));
        },
        3 * timeoutMs + 20_000,
      );
    }
  });
}
