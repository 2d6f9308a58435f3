/** What {@link abortRace} gives a runner: a promise to race against, and the way to let go of the signal. */
export interface AbortRace {
  /** Rejects with `signal.reason` once the signal aborts (at once when it already has); never settles without one. */
  readonly aborted: Promise<never>;
  /** Stops listening to the signal (call it when the run ends). */
  off(): void;
}

/**
 * A promise that rejects with `signal.reason` when `signal` aborts, for a storm runner to race its scenarios
 * against (`runStorm({ signal })`, the provider storms' `signal`). Its rejection is marked handled: a run that
 * already ended when the signal aborts leaves no unhandled rejection.
 */
export function abortRace(signal: AbortSignal | undefined): AbortRace {
  if (signal === undefined) return { aborted: new Promise<never>(() => {}), off: () => {} };
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  return { aborted, off: () => signal.removeEventListener('abort', onAbort) };
}
