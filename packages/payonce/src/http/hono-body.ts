import type { Context } from 'hono';
import { type BodyReadResult, declaresTooLarge, readLimited } from './limited-body.js';

/**
 * Reads a Hono request's body exactly as sent, keeping at most `limit` bytes in memory: a declared
 * `Content-Length` over `limit`, or a stream that grows past it, is `too-large` (answer 413); a client that went
 * away is `aborted`. A body an earlier middleware already read through `c.req` is taken from Hono's cached copy
 * (the same bytes). Never throws.
 */
export async function readHonoBody(c: Context, limit: number): Promise<BodyReadResult> {
  if (declaresTooLarge(c.req.header('content-length'), limit)) return { kind: 'too-large' };
  if (c.req.raw.bodyUsed) {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    return bytes.byteLength > limit ? { kind: 'too-large' } : { kind: 'body', bytes };
  }
  return readLimited(c.req.raw.body, limit);
}

/** A Hono request's headers as a plain record (names lower-case, as the Fetch API gives them). */
export function honoHeaders(c: Context): Record<string, string> {
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** The answer for a body `readHonoBody` refused: 413 when too large, 400 when the client went away. */
export function refusedBody(read: Exclude<BodyReadResult, { kind: 'body' }>): Response {
  return new Response(null, { status: read.kind === 'too-large' ? 413 : 400 });
}

/** A provider engine's answer (`{ status, headers, body }`) as a Fetch `Response`. */
export function honoAnswer(answer: {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}): Response {
  return new Response(answer.body, { status: answer.status, headers: { ...answer.headers } });
}
