/** A response as the behaviour table inspects it: status, headers, exact body bytes. */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
  readonly text: string;
  json(): Record<string, unknown>;
}

/** Options of `post`. `key: undefined` sends no Idempotency-Key header; `token` is the bearer token. */
export interface PostOptions {
  readonly key?: string;
  readonly token?: string;
  readonly body: string;
}

/** POSTs `body` as JSON over a real loopback connection (undici through global `fetch`). */
export async function post(url: string, { key, token = 'sk_test_acme', body }: PostOptions): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (key !== undefined) headers['idempotency-key'] = key;
  const response = await fetch(url, { method: 'POST', headers, body });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  return { status: response.status, headers: response.headers, bytes, text, json: () => JSON.parse(text) };
}

/** A JSON payment body with a unique `reference` (the fake provider counts calls by it). */
export function paymentBody(reference: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ amount: 1999, currency: 'EUR', reference, ...extra });
}
