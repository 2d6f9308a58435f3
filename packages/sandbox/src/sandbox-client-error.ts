import { PayonceError } from 'payonce/internal/core/errors.js';

/**
 * Codes of the errors a `SandboxClient` throws when the outcome of a call is NOT known (anything but a
 * definitive refusal, which is `ProviderDeclined`): `SANDBOX_TIMEOUT` (no answer within `timeoutMs`),
 * `SANDBOX_CONNECTION_LOST` (connection refused, reset or closed without an answer), `SANDBOX_API_ERROR` (an
 * answer that is neither success nor a refusal: 5xx, 409/400 `idempotency_error`, 404, unreadable body).
 */
export type SandboxClientErrorCode = 'SANDBOX_TIMEOUT' | 'SANDBOX_CONNECTION_LOST' | 'SANDBOX_API_ERROR';

/**
 * The result of a sandbox call is unknown: the payment may or may not exist, so checkout records the attempt as
 * `unknown` and reconciliation asks again by merchant reference. @see docs/design.md §6.
 */
export class SandboxClientError extends PayonceError<SandboxClientErrorCode> {
  readonly code: SandboxClientErrorCode;
  /** HTTP method and path of the call, e.g. `POST /v1/payment_intents`. */
  readonly operation: string;
  /** HTTP status of the answer, or `null` when there was none. */
  readonly status: number | null;
  /** Stripe `error.type` of the answer (`idempotency_error`, `api_error`), or `null`. */
  readonly errorType: string | null;
  constructor(
    code: SandboxClientErrorCode,
    operation: string,
    detail: string,
    extra: { status?: number | null; errorType?: string | null; cause?: unknown } = {},
  ) {
    super(`sandbox ${operation}: ${detail}`, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.code = code;
    this.operation = operation;
    this.status = extra.status ?? null;
    this.errorType = extra.errorType ?? null;
  }

  /** True for `SANDBOX_TIMEOUT`. */
  get isTimeout(): boolean {
    return this.code === 'SANDBOX_TIMEOUT';
  }
}
