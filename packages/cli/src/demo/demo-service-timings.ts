/**
 * The compressed worker timings the demo starts `payonce serve` with (all ms), so that a whole storm run takes
 * seconds: the outbox worker polls every 20 ms, a lease expires after 1.5 s (scenario 12's killed fulfilment is
 * taken over quickly), reconciliation runs every 300 ms for attempts older than 800 ms (scenario 15), a provider
 * call with no answer after 1 s makes the attempt `unknown`, and each fulfilment waits 150 ms for the simulated
 * warehouse call (the window in which scenario 12 kills the service). Flags of docs/service.md.
 */
export interface DemoServiceTimings {
  readonly workerPollMs: number;
  readonly leaseMs: number;
  readonly reconcileEveryMs: number;
  readonly reconcileAfterMs: number;
  readonly providerTimeoutMs: number;
  readonly fulfilDelayMs: number;
  /** `--wait-for-in-flight-ms`: a duplicate meeting the same checkout or webhook still running waits this long. */
  readonly waitForInFlightMs: number;
}

/** The demo's defaults: see {@link DemoServiceTimings}. */
export const DEMO_SERVICE_TIMINGS: DemoServiceTimings = Object.freeze({
  workerPollMs: 20,
  leaseMs: 1_500,
  reconcileEveryMs: 300,
  reconcileAfterMs: 800,
  providerTimeoutMs: 1_000,
  fulfilDelayMs: 150,
  waitForInFlightMs: 3_000,
});
