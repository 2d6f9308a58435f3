import type { OutgoingHttpHeaders } from 'node:http';
import type { Response } from 'express';
import { bufferOf } from '../core/buffer-of.js';
import type { HttpResponse } from './http-exchange.js';

type Chunk = string | Uint8Array;
const toBuffer = (chunk: Chunk, encoding?: unknown): Buffer =>
  typeof chunk === 'string'
    ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
    : Buffer.from(chunk);

/**
 * What the route writes to an express `Response`, held back until the core decided: `writeHead`, `write` and `end`
 * are replaced for as long as the capture lasts, so nothing reaches the socket before the receipt (and, in a
 * one-commit mode, the route's writes) committed. `ended` is the answer once the route called `end`; `onEnd` is
 * called each time it does. `discard` forgets an answer (status, the headers the route set, body) so that the
 * application's error handler can write its own in its place.
 */
export class CapturedResponse {
  /** The route's answer once it called `end` (status, every header, body), else `undefined`. */
  ended: HttpResponse | undefined = undefined;
  /** Called each time the route (or the error handler after a `discard`) ends its answer. */
  onEnd: () => void = () => {};
  private chunks: Buffer[] = [];
  /** True once an answer was ended, even if discarded since (its headers may linger on `res`). */
  private produced = false;
  private readonly original: Pick<Response, 'writeHead' | 'write' | 'end'>;
  /** The status and headers `res` had when the capture began (set by earlier middleware, e.g. CORS). */
  private readonly before: { readonly status: number; readonly headers: OutgoingHttpHeaders };

  constructor(private readonly res: Response) {
    this.original = { writeHead: res.writeHead, write: res.write, end: res.end };
    this.before = { status: res.statusCode, headers: res.getHeaders() };
    this.install();
  }

  private install(): void {
    const { res } = this;
    res.writeHead = function writeHead(status: number, ...rest: unknown[]) {
      res.statusCode = status;
      const headers = rest.find((arg) => typeof arg === 'object' && arg !== null);
      if (Array.isArray(headers))
        for (let i = 0; i + 1 < headers.length; i += 2) res.setHeader(headers[i], headers[i + 1]);
      else if (headers)
        for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value);
      return res;
    } as typeof res.writeHead;
    res.write = ((chunk: Chunk, encoding?: unknown, callback?: unknown) => {
      this.chunks.push(toBuffer(chunk, encoding));
      const cb = typeof encoding === 'function' ? encoding : callback;
      if (typeof cb === 'function') queueMicrotask(() => cb());
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: unknown, encoding?: unknown) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== 'function')
        this.chunks.push(toBuffer(chunk as Chunk, encoding));
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.getHeaders())) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
      }
      this.produced = true;
      this.ended = { status: res.statusCode, headers, body: Buffer.concat(this.chunks) };
      this.onEnd();
      return res;
    }) as typeof res.end;
  }

  /**
   * Forgets what the route wrote: its body, status and headers (back to those `res` had when the capture began),
   * and its answer; the capture goes on, for the error handler's answer.
   */
  discard(): void {
    this.chunks = [];
    this.ended = undefined;
    this.resetHeaders();
    this.res.statusCode = this.before.status;
  }

  /** Gives `res` its own `writeHead`, `write` and `end` back. */
  restore(): void {
    Object.assign(this.res, this.original);
  }

  /** Sends the route's own answer as it was written. */
  sendProduced(): void {
    this.restore();
    this.res.end(Buffer.concat(this.chunks));
  }

  /** Sends `response` (a replay, a problem) in place of anything the route wrote. */
  sendInstead({ status, headers, body }: HttpResponse): void {
    this.restore();
    if (this.produced) for (const name of this.res.getHeaderNames()) this.res.removeHeader(name);
    this.res.statusCode = status;
    for (const [name, value] of Object.entries(headers)) this.res.setHeader(name, value);
    this.res.setHeader('content-length', body.byteLength);
    this.res.end(bufferOf(body));
  }

  private resetHeaders(): void {
    for (const name of this.res.getHeaderNames()) this.res.removeHeader(name);
    for (const [name, value] of Object.entries(this.before.headers)) {
      if (value !== undefined) this.res.setHeader(name, value);
    }
  }
}
