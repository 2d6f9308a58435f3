import { Agent, request } from 'undici';

/** One HTTP answer as the storm saw it: status, lower-case headers, the body as text and parsed JSON (or `null`). */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** The body parsed as JSON, `null` when it is empty or not JSON. */
  readonly json: unknown;
}

/** A request of {@link StormHttp.send}; `body` is sent as is (a string) or as JSON (anything else). */
export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/** The storm could not talk to a target at all (connection refused, reset, no answer in time). */
export class StormHttpError extends Error {
  constructor(
    readonly url: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${url}: ${message}`, options);
    this.name = 'StormHttpError';
  }
}

function headersOf(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function parseJson(text: string): unknown {
  if (text.length === 0) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * The storm's HTTP client (undici): every call to the service and the sandbox goes through here, so scenarios test
 * the target over HTTP only. `timeoutMs` bounds one request from start to the end of its body.
 * @throws {StormHttpError} when there is no answer (connection refused/reset, timeout).
 */
export class StormHttp {
  private readonly agent: Agent;
  constructor(readonly timeoutMs: number) {
    this.agent = new Agent({ connections: 64, keepAliveTimeout: 1_000, connect: { timeout: timeoutMs } });
  }

  /** Sends one request; a GET that got no answer is tried once more (a pooled socket may belong to a dead process). */
  async send(req: HttpRequest): Promise<HttpAnswer> {
    try {
      return await this.sendOnce(req);
    } catch (error) {
      if (req.method !== 'GET' || !(error instanceof StormHttpError)) throw error;
      return this.sendOnce(req);
    }
  }

  private async sendOnce(req: HttpRequest): Promise<HttpAnswer> {
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
    }
    try {
      const response = await request(req.url, {
        method: req.method,
        headers,
        body,
        dispatcher: this.agent,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const text = await response.body.text();
      return Object.freeze({
        status: response.statusCode,
        headers: Object.freeze(headersOf(response.headers)),
        text,
        json: parseJson(text),
      });
    } catch (cause) {
      const message = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
      throw new StormHttpError(`${req.method} ${req.url}`, `no answer (${message})`, { cause });
    }
  }

  /** Closes the connection pool. */
  async close(): Promise<void> {
    await this.agent.close();
  }
}
