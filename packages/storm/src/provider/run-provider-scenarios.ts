import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { abortRace } from '../abort-race.js';
import { literalSecrets, redactAll } from '../storm-timeline.js';
import type { ProviderScenario, ProviderStormProgress } from './provider-scenario.js';

/** A scenario's run as the runner drives it: the context the scenario gets, ended by `fail` + `conclude`. */
export interface ScenarioRunHandle<R> {
  /** Records an error (a throw, the wall-clock budget) that ended the scenario early. */
  fail(error: unknown): void;
  /** Judges every order the scenario touched and returns its result. */
  conclude(): Promise<R>;
  /** Cuts the scenario's waits short (the run was stopped): they end at their next poll. */
  stop(): void;
  /**
   * Makes the next `conclude()` the second look at the scenario's orders after the run (see `ProviderScenarioRun`);
   * false when the scenario judged no order (a skip), and then `conclude()` must not be called again.
   */
  beginRecheck(): boolean;
}

/** Options of {@link runProviderScenarios}. */
export interface ProviderScenariosOptions<Ctx, R> {
  readonly scenarios: readonly ProviderScenario<Ctx, R>[];
  /** Budget of one scenario, ms: a scenario still running after 3 × this + 10 s fails with that reason. */
  readonly timeoutMs: number;
  /** Scenarios run at the same time; those marked `alone` run one by one after the others. */
  readonly concurrency: number;
  readonly onProgress?: (event: ProviderStormProgress<R>) => void;
  /** A fresh run (context + handle) of one scenario. */
  open(scenario: ProviderScenario<Ctx, R>): Ctx & ScenarioRunHandle<R>;
  /** Stops the run when it aborts: no further scenario starts, the running ones stop waiting, the run rejects. */
  readonly signal?: AbortSignal;
  /**
   * How long after a group of scenarios (the concurrent ones, then the `alone` ones) their orders are judged again,
   * ms: an app that answers a call and repeats an effect in the background fails as "after the run". @default 1_000
   */
  readonly settleMs?: number;
  /**
   * The credentials the run was given (a key, a secret, a password, a token): never in a result, in any of the forms
   * an app's answer could quote them (`literalSecrets`). The well-known formats are redacted anyway.
   */
  readonly secrets?: readonly string[];
}

/** `ProviderScenariosOptions.settleMs` when not given. */
const DEFAULT_SETTLE_MS = 1_000;

/**
 * Runs provider storm scenarios: `concurrency` at a time, then the `alone` ones one by one; a scenario that throws
 * or overruns its wall-clock budget concludes with the error as a failure. Never throws for a failing target.
 * @returns the results, sorted by scenario number.
 * @throws `options.signal.reason` once the signal aborted (no result then: the target was gone, not judged).
 */
export async function runProviderScenarios<Ctx, R extends { readonly id: number; readonly verdict: string }>(
  options: ProviderScenariosOptions<Ctx, R>,
): Promise<R[]> {
  const { scenarios, timeoutMs, signal } = options;
  const onProgress = options.onProgress ?? (() => {});
  const literals = literalSecrets(options.secrets ?? []);
  const clean = (result: R): R => (literals.length === 0 ? result : redactAll(result, literals));
  const stop = abortRace(signal);
  /** `work`, unless the signal aborts first: then the scenario's waits are cut short and the reason is thrown. */
  const unlessAborted = async <T>(run: ScenarioRunHandle<R>, work: Promise<T>): Promise<T> => {
    try {
      return await Promise.race([work, stop.aborted]);
    } finally {
      if (signal?.aborted === true) run.stop();
    }
  };
  const total = scenarios.length;
  let started = 0;
  let finished = 0;
  const concluded: { readonly run: ScenarioRunHandle<R>; result: R }[] = [];
  const runOne = async (scenario: ProviderScenario<Ctx, R>): Promise<R> => {
    signal?.throwIfAborted();
    started += 1;
    onProgress({ kind: 'started', id: scenario.id, name: scenario.name, index: started, total });
    const run = options.open(scenario);
    let timer: NodeJS.Timeout | undefined;
    const wallMs = 3 * timeoutMs + 10_000;
    const wall = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the scenario did not finish within ${wallMs} ms`)), wallMs);
    });
    let result: R;
    try {
      result = clean(await unlessAborted(run, Promise.race([scenario.run(run), wall])));
    } catch (error) {
      signal?.throwIfAborted();
      run.fail(error);
      result = clean(await unlessAborted(run, run.conclude()));
    } finally {
      clearTimeout(timer);
    }
    finished += 1;
    onProgress({ kind: 'finished', result, index: finished, total });
    concluded.push({ run, result });
    return result;
  };
  /** The second look at every scenario concluded since the last one, after the settle window. */
  const recheckConcluded = async () => {
    const due = concluded.splice(0).filter((entry) => entry.result.verdict !== 'skip');
    if (due.length === 0) return;
    await sleep(settleMs, undefined, signal === undefined ? undefined : { signal }).catch((error: unknown) => {
      signal?.throwIfAborted(); // the run rejects with the signal's reason, as everywhere else
      throw error;
    });
    // Every scenario's second look at once: an order that never settled waits out its window in parallel, not in turn.
    await Promise.all(
      due.map(async (entry) => {
        if (!entry.run.beginRecheck()) return;
        const again = clean(await unlessAborted(entry.run, entry.run.conclude()));
        results[results.indexOf(entry.result)] = again;
      }),
    );
  };
  const settleMs = intIn(options.settleMs ?? DEFAULT_SETTLE_MS, 0, 600_000, 'settleMs');
  const queue = scenarios.filter((s) => s.alone !== true);
  const results: R[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) results.push(await runOne(next));
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, queue.length) }, worker));
    // The scenarios that kill the target run after the others were judged again: a restart must not hide a late effect.
    await recheckConcluded();
    for (const alone of scenarios.filter((s) => s.alone === true)) results.push(await runOne(alone));
    await recheckConcluded();
  } finally {
    stop.off();
  }
  return results.sort((a, b) => a.id - b.id);
}

/** `value` as an integer from `min` to `max`. @throws {InvalidOption} (`name`) anything else. */
export function intIn(value: number, min: number, max: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidOption(name, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

/**
 * The scenarios of `all` that `only` selects by number (all when `only` is absent); `provider` names them in the
 * error. @throws {InvalidOption} (`only`) an unknown number, or an empty list.
 */
export function selectProviderScenarios<S extends { readonly id: number }>(
  all: readonly S[],
  only: readonly number[] | undefined,
  provider: string,
): S[] {
  if (only === undefined) return [...all];
  if (only.length === 0) throw new InvalidOption('only', 'must name at least one scenario');
  for (const id of only) {
    if (!all.some((s) => s.id === id)) {
      throw new InvalidOption('only', `no ${provider} scenario ${id}; they are numbered 1 to ${all.length}`);
    }
  }
  return all.filter((s) => only.includes(s.id));
}
