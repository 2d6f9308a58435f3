import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { startOtelSdk } from '../../packages/service/src/otel-sdk.js';

// startOtelSdk registers the process-wide providers of @opentelemetry/api; a second SDK in the same process would
// silently export nothing (the API keeps the first), so it is refused instead, and shutdown unregisters.

describe('startOtelSdk', () => {
  it('refuses a second SDK in the process, and registers again after shutdown', async () => {
    // Port 9 (discard) on loopback: nothing listens, so the one metric export at shutdown fails fast and is swallowed.
    const first = startOtelSdk('http://127.0.0.1:9');
    expect(first.tracesUrl).toBe('http://127.0.0.1:9/v1/traces');
    const span = trace.getTracer('test').startSpan('registered');
    expect(span.isRecording()).toBe(true);
    span.end();
    expect(() => startOtelSdk('http://127.0.0.1:9')).toThrow(InvalidOption);
    // The refused SDK undid nothing of the first one.
    expect(trace.getTracer('test').startSpan('still registered').isRecording()).toBe(true);
    await first.shutdown();
    expect(trace.getTracer('test').startSpan('after shutdown').isRecording()).toBe(false);
    const again = startOtelSdk('http://127.0.0.1:9');
    await again.shutdown();
  }, 30_000);
});
