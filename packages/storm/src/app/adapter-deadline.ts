/**
 * What an adapter call gets beyond the storm's per-request timeout: an adapter over HTTP times out on its own
 * request first, with the more telling "no answer" of that request.
 */
export const ADAPTER_GRACE_MS = 1_000;

/** An adapter call (or its app) did not answer within the storm's budget for one call. */
export class AdapterCallTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`the adapter's ${what} did not answer within ${ms} ms (the app hangs, or the adapter waits on nothing)`);
    this.name = 'AdapterCallTimeout';
  }
}

/**
 * `call()` bounded by `ms`: its result, or {@link AdapterCallTimeout} when it has not settled by then (the call
 * itself is not cancelled: an adapter call has no cancel; its late result is ignored). A synchronous throw of
 * `call` is a rejection. The storm never waits on an adapter without a bound: a `readOrder` that never answers
 * would otherwise hold the scenario, its judgement and the whole run.
 * @throws {AdapterCallTimeout} the call did not settle within `ms`.
 */
export async function withinDeadline<T>(what: string, ms: number, call: () => Promise<T> | T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AdapterCallTimeout(what, ms)), ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(call), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
