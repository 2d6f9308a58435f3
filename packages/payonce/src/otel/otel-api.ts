import { createRequire } from 'node:module';

/** The part of `@opentelemetry/api` payonce uses (its CommonJS entry: one global registry with the ESM entry). */
export type OtelApi = typeof import('@opentelemetry/api');

const require = createRequire(import.meta.url);

/** `undefined` until the first call; then the API, or `null` when `@opentelemetry/api` is not installed. */
let resolved: OtelApi | null | undefined;

/** True when `error` is Node's "cannot find" of the API package itself (not of a file inside a broken install). */
function isApiMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'MODULE_NOT_FOUND' && error instanceof Error && error.message.includes("'@opentelemetry/api'");
}

/**
 * The `@opentelemetry/api` module (an optional peer dependency of payonce), resolved once per process; `null` when
 * it is not installed, and payonce then records no telemetry at all. An SDK the application registers with any copy
 * of the API 1.x is seen through the API's global registry.
 * @throws whatever loading an installed but broken `@opentelemetry/api` throws (never for a missing one).
 * @see docs/observability.md "Cost when no SDK is registered".
 */
export function otelApi(): OtelApi | null {
  if (resolved !== undefined) return resolved;
  try {
    resolved = require('@opentelemetry/api') as OtelApi;
  } catch (error) {
    if (!isApiMissing(error)) throw error;
    resolved = null;
  }
  return resolved;
}
