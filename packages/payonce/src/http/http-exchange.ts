/**
 * A framework-neutral view of one request, built by an adapter. Header names are lower case; a header sent
 * on several lines may be an array. `body` is the exact bytes received (never a re-serialised object).
 */
export interface HttpExchange {
  /** Upper-case method, e.g. `POST`. */
  readonly method: string;
  /** The route pattern the framework matched (`/v1/payments/:id`), not the concrete path. */
  readonly route: string;
  /**
   * The concrete request target as received (origin-form: path and query, e.g. `/v1/payments/pay_1/refunds?x=1`).
   * The fingerprint covers it, so one key reused on another concrete path of the same pattern is a different
   * request (422), never a replay of the first path's answer (docs/design.md §4: method, path, body digest).
   */
  readonly target: string;
  /** The authenticated principal (tenant, account, API key id) the key is scoped to. */
  readonly principal: string;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body: Uint8Array;
  /** Aborted when the client goes away; stops a wait for an in-flight request with the same key. Optional. */
  readonly signal?: AbortSignal;
}

/** A response in neutral form: integer status 100–599, header values as strings, body bytes. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}
