/**
 * Compressed service timings for the storm (ms): fast worker poll, a lease long enough for the fulfil delay, quick
 * reconciliation of unknown attempts (older than the provider timeout, so a call still in flight is not judged), a
 * provider timeout the hang scenario exceeds quickly.
 */
export const STORM_SERVICE_TIMINGS = Object.freeze({
  workerPollMs: 20,
  leaseMs: 1_500,
  retryBaseMs: 50,
  reconcileEveryMs: 100,
  reconcileAfterMs: 2_500,
  // Long enough that a loaded machine's slow sandbox answer is not taken for a timeout (scenario 4 then sees an
  // unknown attempt), short enough for scenario 15's hang.
  providerTimeoutMs: 2_000,
  fulfilDelayMs: 0,
});
