import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidOption, PayonceError } from 'payonce/internal/core/errors.js';
import { abortRace } from './abort-race.js';
import { ALL_SCENARIOS, KILLING_SCENARIO_IDS } from './all-scenarios.js';
import { ADAPTER_GRACE_MS, withinDeadline } from './app/adapter-deadline.js';
import { withStringIds } from './app/adapter-ids.js';
import { AppApi } from './app/app-api.js';
import { missingCapability } from './app/missing-capability.js';
import { referenceServiceAdapter } from './app/reference-service-adapter.js';
import type { StormAppAdapter } from './app/storm-app-adapter.js';
import { errorText } from './error-text.js';
import { ledgerForTimeline, providerTimeline } from './provider-timeline.js';
import { SandboxApi } from './sandbox-api.js';
import type { Scenario, ScenarioResult } from './scenario.js';
import { ScenarioRun } from './scenario-run.js';
import type { ServiceControl } from './service-control.js';
import { StormHttp } from './storm-http.js';
import { newStormSeed, sandboxSeedOf } from './storm-random.js';
import type { StormProgress, StormReport } from './storm-report.js';
import { inTimeOrder } from './storm-timeline.js';

/** Scenarios `runStorm` runs at the same time unless told otherwise (scenarios 12, 16 and 21, which kill a process, always run alone, last). */
export const DEFAULT_STORM_CONCURRENCY = 4;

/** Options of {@link runStorm}. */
export interface StormOptions {
  /**
   * Base URL of the reference service under test (docs/service.md), e.g. `http://127.0.0.1:3000`: the storm then
   * uses {@link referenceServiceAdapter} with `replicas`, `adminToken` and `serviceControl`. Give `target` or `app`.
   */
  target?: string;
  /**
   * The app under test through its own adapter (docs/storm-your-app.md) instead of a reference service `target`;
   * `replicas`, `adminToken` and `serviceControl` are then ignored (the adapter's capabilities say). The storm
   * calls its `close()` at the end.
   */
  app?: StormAppAdapter;
  /**
   * Seed of every random choice of the run (order amounts, the replica a crash kills): the same seed replays them.
   * A positive integer below 2^31. @default a fresh one, in the report
   */
  seed?: number;
  /**
   * Base URLs of every replica of the service (several `payonce serve` processes on one database, `target` among
   * them or not): every scenario's requests go to them round-robin, scenario 12 kills one chosen at random, and
   * the replica scenarios (19–22) aim at particular ones. @default `[target]`
   */
  replicas?: readonly string[];
  /** Base URL of the sandbox provider the service calls and that sends its webhooks (docs/sandbox.md). */
  provider: string;
  /** Bearer token of the service's `/admin/*` routes; without it scenario 14 is skipped. */
  adminToken?: string;
  /** Scenario numbers to run (1…22). @default all */
  only?: readonly number[];
  /** How scenario 12 kills and restarts the service. @default pidKillControl(target) */
  serviceControl?: ServiceControl;
  /** Called when a scenario starts and when it ends (with its result). */
  onProgress?: (event: StormProgress) => void;
  /**
   * Budget of one scenario in ms: every wait (webhooks, reconciliation, lease expiry) must end within it, and each
   * HTTP request within it. Raise it for a service with long default timings (lease 30 s, reconcile after 60 s).
   * @default 30_000
   */
  timeoutMs?: number;
  /** Scenarios run at the same time (scenarios 12, 16 and 21, which kill a service process, always run alone, last). @default 4 */
  concurrency?: number;
  /**
   * Milliseconds to wait after the last scenario before every order is judged again (0…600 000): an app that
   * acknowledges a delivery and repeats an effect later, in the background, is caught when its delay is shorter.
   * Raise it above your app's own background delays (a queue's retry delay, a job's schedule).
   * @default 1_000
   */
  settleMs?: number;
  /**
   * Stops the run when it aborts (e.g. the app under test exited): no further scenario starts, the running ones
   * stop waiting, and `runStorm` rejects with `signal.reason` instead of judging orders of a dead app.
   */
  signal?: AbortSignal;
}

/**
 * Calls the adapter's `close()` once, bounded by `timeoutMs`: `null` when it returned, else why not (a throw, or no
 * return in time). Never throws: a failing close must not take the run's verdicts and reports with it.
 */
async function closeAdapter(app: StormAppAdapter, timeoutMs: number): Promise<string | null> {
  if (app.close === undefined) return null;
  try {
    await withinDeadline('close', timeoutMs + ADAPTER_GRACE_MS, () => app.close?.());
    return null;
  } catch (error) {
    return errorText(error);
  }
}

/** `StormOptions.settleMs` when not given: the wait before every order is judged again. */
export const DEFAULT_SETTLE_MS = 1_000;

/**
 * The service (`GET /healthz`) or the sandbox (`GET /_sandbox/signing`) did not answer 200 before the storm began;
 * nothing was run. Client side only (never an HTTP answer); `payonce storm` exits with status 1.
 */
export class StormTargetUnavailable extends PayonceError<'STORM_TARGET_UNAVAILABLE'> {
  readonly code = 'STORM_TARGET_UNAVAILABLE';
}

function baseUrl(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new InvalidOption(name, 'must be an http(s) URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidOption(name, `must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidOption(name, 'must be an http(s) URL');
  return value.replace(/\/+$/, '');
}

function intIn(value: number, min: number, max: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidOption(name, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** The scenarios `only` selects, by number. @throws {InvalidOption} an unknown number, or an empty list. */
export function selectScenarios(only: readonly number[] | undefined): Scenario[] {
  if (only === undefined) return [...ALL_SCENARIOS];
  if (only.length === 0) throw new InvalidOption('only', 'must name at least one scenario');
  const known = new Map(ALL_SCENARIOS.map((s) => [s.id, s]));
  for (const id of only) {
    if (!known.has(id))
      throw new InvalidOption('only', `no scenario ${id}; scenarios are numbered 1 to ${ALL_SCENARIOS.length}`);
  }
  return ALL_SCENARIOS.filter((s) => only.includes(s.id));
}

async function preflight(http: StormHttp, app: StormAppAdapter, provider: string): Promise<void> {
  try {
    await app.health();
  } catch (error) {
    const message = errorText(error);
    throw new StormTargetUnavailable(message, { cause: error });
  }
  const url = `${provider}/_sandbox/signing`;
  let status: number;
  try {
    status = (await http.send({ method: 'GET', url })).status;
  } catch (error) {
    throw new StormTargetUnavailable(`the sandbox provider does not answer at ${url}`, { cause: error });
  }
  if (status !== 200) {
    const hint = status === 403 ? ' (start it with --serve-secrets)' : '';
    throw new StormTargetUnavailable(`the sandbox provider answered ${status} at ${url}${hint}`);
  }
}

function seedOf(value: number | undefined): number {
  if (value === undefined) return newStormSeed();
  return intIn(value, 1, 0x7fffffff, 'seed');
}

function adapterOf(options: StormOptions, timeoutMs: number): StormAppAdapter {
  if (options.app !== undefined) return options.app;
  if (options.target === undefined)
    throw new InvalidOption('target', 'give the service URL (target) or an app adapter (app)');
  const target = baseUrl(options.target, 'target');
  const replicas = (options.replicas ?? [target]).map((url, i) => baseUrl(url, `replicas[${i}]`));
  if (replicas.length === 0) throw new InvalidOption('replicas', 'must name at least one base URL');
  return referenceServiceAdapter({
    target,
    replicas,
    adminToken: options.adminToken ?? null,
    ...(options.serviceControl ? { serviceControl: options.serviceControl } : {}),
    timeoutMs,
  });
}

/**
 * Each result with the provider side of its orders' timelines (from one read of the sandbox's ledger) merged into
 * the storm's own events, in time order. When the ledger cannot be read, the results keep the storm's events and a
 * note says why.
 */
async function withProviderTimelines(
  results: readonly ScenarioResult[],
  sandbox: SandboxApi,
): Promise<ScenarioResult[]> {
  let ledger: ReturnType<typeof ledgerForTimeline>;
  try {
    ledger = ledgerForTimeline(await sandbox.ledger());
  } catch (error) {
    const note = `the sandbox's ledger could not be read for the timeline: ${errorText(error)}`;
    return results.map((r) => Object.freeze({ ...r, notes: Object.freeze([...r.notes, note]) }));
  }
  return results.map((result) => {
    const orders = new Set(result.orders.map((o) => o.orderId));
    for (const event of result.timeline ?? []) if (event.orderId !== null) orders.add(event.orderId);
    const timeline = inTimeOrder([...(result.timeline ?? []), ...providerTimeline(ledger, orders)]);
    return Object.freeze({ ...result, timeline });
  });
}

/**
 * Runs the conformance scenarios of docs/design.md §9 against a LIVE app (the reference service at `target`, or any
 * app through its adapter, `app`) and sandbox over HTTP and judges every order
 * they touched by the common rule (at most one charge, one paid transition, one fulfilment; nothing lost) plus
 * each scenario's own criterion. Scenarios use their own customer and orders, run `concurrency` at a time, and
 * scenario 12 (which kills the service) alone at the end. A scenario that throws, or does not finish within
 * 3 × `timeoutMs` + 10 s, is a failure with the error as its reason (its orders are still judged); the run itself does not
 * throw for a failing target. A scenario that needs a capability the adapter lacks is skipped, saying which.
 * When `signal` aborts, no further scenario starts, the running ones stop waiting, and the run rejects.
 * @throws {InvalidOption} a bad URL, `only`, `timeoutMs` (1 000…600 000), `concurrency` (1…22), `seed`, or
 * neither `target` nor `app`.
 * @throws {StormTargetUnavailable} the app is not healthy (`/healthz`) or the sandbox's controls do not answer 200.
 * @throws `signal.reason` once `signal` aborted (before or during the run).
 * @see docs/design.md §9; docs/storm.md (every scenario and its criterion).
 * @example const report = await runStorm({ target: service.url, provider: sandbox.url, adminToken });
 */
export async function runStorm(options: StormOptions): Promise<StormReport> {
  const provider = baseUrl(options.provider, 'provider');
  const timeoutMs = intIn(options.timeoutMs ?? 30_000, 1_000, 600_000, 'timeoutMs');
  const settleMs = intIn(options.settleMs ?? DEFAULT_SETTLE_MS, 0, 600_000, 'settleMs');
  const concurrency = intIn(options.concurrency ?? DEFAULT_STORM_CONCURRENCY, 1, ALL_SCENARIOS.length, 'concurrency');
  const scenarios = selectScenarios(options.only);
  const seed = seedOf(options.seed);
  const app = adapterOf(options, timeoutMs);
  const onProgress = options.onProgress ?? (() => {});
  const startedAtMs = Date.now();
  const http = new StormHttp(timeoutMs);
  let closed = false;
  const { signal } = options;
  const stop = abortRace(signal);
  /** `work`, unless the signal aborts first: then the scenario's waits are cut short and the reason is thrown. */
  const unlessAborted = async <T>(run: ScenarioRun, work: Promise<T>): Promise<T> => {
    try {
      return await Promise.race([work, stop.aborted]);
    } finally {
      if (signal?.aborted === true) run.stop();
    }
  };
  try {
    signal?.throwIfAborted();
    await preflight(http, app, provider);
    const sandbox = new SandboxApi(http, provider);
    await sandbox.reseed(sandboxSeedOf(seed)).catch((error: unknown) => {
      throw new StormTargetUnavailable(`the sandbox provider would not take the run's seed: ${errorText(error)}`, {
        cause: error,
      });
    });
    // Ids an app hands over as numbers (a serial primary key) are taken as their decimal strings everywhere.
    const settings = { service: new AppApi(withStringIds(app), http), sandbox, timeoutMs, seed };
    const total = scenarios.length;
    let started = 0;
    let finished = 0;
    const runs = new Map<number, ScenarioRun>();
    const runOne = async (scenario: Scenario): Promise<ScenarioResult> => {
      signal?.throwIfAborted();
      started += 1;
      onProgress({ kind: 'started', id: scenario.id, name: scenario.name, index: started, total });
      const run = new ScenarioRun(scenario, settings);
      runs.set(scenario.id, run);
      const missing = missingCapability(app, scenario.needs ?? []);
      if (missing !== null) {
        const skipped = run.skip(missing);
        finished += 1;
        onProgress({ kind: 'finished', result: skipped, index: finished, total });
        return skipped;
      }
      let result: ScenarioResult;
      let timer: NodeJS.Timeout | undefined;
      const wallMs = 3 * timeoutMs + 10_000;
      const wall = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the scenario did not finish within ${wallMs} ms`)), wallMs);
      });
      try {
        result = await unlessAborted(run, Promise.race([scenario.run(run), wall]));
      } catch (error) {
        signal?.throwIfAborted();
        run.fail(error);
        const concluded = run.conclude().catch((conclusion: unknown) => {
          run.fail(conclusion);
          return run.abort();
        });
        result = await unlessAborted(run, concluded);
      } finally {
        clearTimeout(timer);
      }
      finished += 1;
      onProgress({ kind: 'finished', result, index: finished, total });
      return result;
    };
    const queue = scenarios.filter((s) => !KILLING_SCENARIO_IDS.includes(s.id));
    const results: ScenarioResult[] = [];
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) results.push(await runOne(next));
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
    // Effects an app makes in the background after acknowledging a delivery can come after its scenario concluded:
    // every order is judged again once the settle window has passed (a problem found only then fails its scenario).
    // The scenarios that kill the app run after the others' recheck, so a restart cannot wipe what it would see.
    const recheck = async (done: readonly ScenarioResult[]) => {
      if (done.every((result) => result.verdict === 'skip')) return [...done];
      signal?.throwIfAborted();
      await sleep(settleMs, undefined, signal === undefined ? undefined : { signal });
      return Promise.all(done.map((result) => runs.get(result.id)?.recheck(result) ?? result));
    };
    const rechecked = await recheck(results);
    const killed: ScenarioResult[] = [];
    for (const crash of scenarios.filter((s) => KILLING_SCENARIO_IDS.includes(s.id))) killed.push(await runOne(crash));
    rechecked.push(...(await recheck(killed)));
    rechecked.sort((a, b) => a.id - b.id);
    const timed = await withProviderTimelines(rechecked, sandbox);
    const closeError = await closeAdapter(app, timeoutMs);
    closed = true;
    return Object.freeze({
      target: options.target === undefined ? app.name : baseUrl(options.target, 'target'),
      provider,
      seed,
      startedAtMs,
      durationMs: Date.now() - startedAtMs,
      passed: rechecked.every((r) => r.verdict !== 'fail'),
      sandboxSeed: sandboxSeedOf(seed),
      results: Object.freeze(timed),
      ...(closeError === null ? {} : { closeError }),
    });
  } finally {
    stop.off();
    await http.close();
    if (!closed) await closeAdapter(app, timeoutMs);
  }
}
