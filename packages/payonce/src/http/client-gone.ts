import type { ServerResponse } from 'node:http';

/**
 * An `AbortSignal` aborted when the client goes away before `response` was fully sent (its socket closed), so a
 * request waiting for an in-flight duplicate stops waiting (`waitForInFlightMs`). Made only when a wait is
 * configured: most requests never need one.
 */
export function clientGoneSignal(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** True when requests may wait for an in-flight duplicate (a per-policy budget above 0, or the guard's default). */
export function mayWait(policyWaitMs: number | undefined, guardWaitMs: number): boolean {
  return (policyWaitMs ?? guardWaitMs) > 0;
}
