/** Why reading a body stopped: it grew past the limit, or the connection ended before the body did. */
export type BodyReadResult =
  | { readonly kind: 'body'; readonly bytes: Uint8Array }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'aborted' };

/** A declared `Content-Length` over `limit` bytes (a body the route can refuse before reading a byte). */
export function declaresTooLarge(contentLength: string | null | undefined, limit: number): boolean {
  if (contentLength === null || contentLength === undefined || !/^\d+$/.test(contentLength)) return false;
  return Number(contentLength) > limit;
}

/**
 * Reads a web `ReadableStream` of body bytes to its end, keeping every byte exactly, and stops (cancelling the
 * stream) as soon as more than `limit` bytes arrived, so an oversized body costs at most `limit` bytes of memory.
 * Never throws: a stream that errors (the client went away) is `aborted`.
 */
export async function readLimited(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<BodyReadResult> {
  if (stream === null) return { kind: 'body', bytes: new Uint8Array(0) };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        return { kind: 'too-large' };
      }
      chunks.push(value);
    }
  } catch {
    return { kind: 'aborted' };
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { kind: 'body', bytes };
}
