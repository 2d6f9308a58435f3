// Run by no-otel-api.test.ts with @opentelemetry/api unresolvable: the guard, its spans' seam and the trace
// context helpers must work (as no-ops) and say so on stdout as JSON.
import { createRequire } from 'node:module';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { otelApi } from '../../packages/payonce/src/otel/otel-api.js';
import { inSpan } from '../../packages/payonce/src/otel/span-scope.js';
import { activeTraceContext } from '../../packages/payonce/src/otel/trace-context.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/index.js';

let resolvable = true;
try {
  createRequire(import.meta.url).resolve('@opentelemetry/api');
} catch {
  resolvable = false;
}
const guard = new IdempotencyGuard(new MemoryStore());
const key = new RequestKey('stripe', 'evt_no_otel');
const first = await guard.run(key, async () => ({ status: 200, body: 'ok' }));
const second = await guard.run(key, async () => ({ status: 200, body: 'ok' }));
const recording = await inSpan('payonce.test', undefined, async (span) => span.recording);
process.stdout.write(
  JSON.stringify({
    resolvable,
    api: otelApi() === null ? null : 'loaded',
    replays: [first.isReplay, second.isReplay],
    recording,
    traceContext: activeTraceContext(),
  }),
);
