import { bounded } from './intake-record.js';
import type { IntakeRuntime } from './intake-runtime.js';
import type { ProviderEvent } from './providers/provider-event.js';

/**
 * Reports that the handler of `where.endpoint` threw `error` while applying `event`: the intake event `handler-failed`
 * (which `logIntake` logs at `error`), whether or not a journal is configured. When nothing listens to it and no
 * journal records the delivery either, one line on stderr instead, so a failing handler is never silent. Only the
 * endpoint, the provider, the receipt key and the error's name and message (redacted with the intake's `scrubText`,
 * cut to `maxErrorChars`) are reported: never the payload or its personal data.
 * @see docs/webhooks.md "Logging".
 */
export function reportHandlerFailure(
  runtime: IntakeRuntime,
  where: { readonly endpoint: string; readonly provider: string },
  event: ProviderEvent,
  error: unknown,
): void {
  const { endpoint, provider } = where;
  const type = bounded(runtime, error instanceof Error ? error.name : typeof error);
  const message = bounded(runtime, error instanceof Error ? error.message : String(error));
  const receiptKey = event.key === null ? null : `${event.key.provider}/${bounded(runtime, event.key.externalId)}`;
  if (runtime.emitter.has('handler-failed')) {
    runtime.emitter.emit('handler-failed', { endpoint, provider, receiptKey, error: { type, message } });
  } else if (runtime.journal === undefined) {
    console.error(
      `payonce: webhook handler failed (${endpoint}, ${receiptKey ?? 'no receipt key'}): ${type}: ${message}`,
    );
  }
}
