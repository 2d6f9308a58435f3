/** The admin API client of the console: same-origin fetches with the session cookie and the CSRF token. */

/** A problem+json answer of the admin API. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, detail: string) {
    super(detail);
    this.status = status;
    this.code = code;
  }
}

let csrfToken: string | null = null;
let operator = '';

/** The logged-in operator's name. */
export function operatorName(): string {
  return operator;
}

async function answer<T>(response: Response): Promise<T> {
  if (response.status === 401) {
    // Session gone (expired, logged out, service restarted): the server answers the login page.
    window.location.reload();
    throw new ApiError(401, 'ADMIN_TOKEN_INVALID', 'logged out');
  }
  const text = await response.text();
  const body = text === '' ? null : (JSON.parse(text) as unknown);
  if (!response.ok) {
    const problem = (body ?? {}) as { code?: string; detail?: string };
    throw new ApiError(response.status, problem.code ?? 'ERROR', problem.detail ?? `HTTP ${response.status}`);
  }
  return body as T;
}

/** Reads the session (operator, CSRF token) once at start. */
export async function loadSession(): Promise<void> {
  const session = await get<{ operator: string; csrfToken: string | null }>('/session');
  csrfToken = session.csrfToken;
  operator = session.operator;
}

/** `GET /admin/api<path>` with `query` (empty values dropped). */
export async function get<T>(
  path: string,
  query: Record<string, string | number | boolean | undefined> = {},
): Promise<T> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  const response = await fetch(`/admin/api${path}${qs ? `?${qs}` : ''}`, { credentials: 'same-origin' });
  return answer<T>(response);
}

/** `POST /admin/api<path>` with the CSRF token and the caller's Idempotency-Key (one per confirmed action). */
export async function post<T>(path: string, body: unknown, idempotencyKey: string): Promise<T> {
  const response = await fetch(`/admin/api${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
      'x-csrf-token': csrfToken ?? '',
    },
    body: JSON.stringify(body ?? {}),
  });
  return answer<T>(response);
}

/** Ends the session and goes back to the login page. */
export async function logout(): Promise<void> {
  await fetch('/console/logout', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'x-csrf-token': csrfToken ?? '' },
  });
  window.location.replace('/console/');
}

/** A time as `YYYY-MM-DD HH:MM:SS` UTC. */
export function when(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

/** A duration in ms as a short human text. */
export function age(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/** Tone of a status for its pill. */
export function tone(status: string): 'ok' | 'warn' | 'bad' | '' {
  if (['completed', 'done', 'succeeded', 'new', 'applied', 'paid', 'valid'].includes(status)) return 'ok';
  if (
    [
      'processing',
      'queued',
      'running',
      'pending',
      'requires_action',
      'duplicate',
      'in-progress',
      'parked',
      'declined',
      'creating',
      'replayed',
    ].includes(status)
  )
    return 'warn';
  if (['failed', 'dead', 'rejected', 'unknown', 'refused', 'cancelled'].includes(status)) return 'bad';
  return '';
}
