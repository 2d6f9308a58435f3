import { randomUUID } from 'node:crypto';

/** A JSON answer of the admin API. */
export interface AdminAnswer<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** Calls `/admin/api…` (or any path) with the bearer token unless `token: null`; POSTs get a fresh Idempotency-Key. */
export async function admin<T = Record<string, unknown>>(
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  init: { token?: string | null; body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
): Promise<AdminAnswer<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (method === 'POST' && init.key !== null) headers['idempotency-key'] = init.key ?? randomUUID();
  let body: string | undefined;
  if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.body);
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}
