import { bufferOf } from '../core/buffer-of.js';
import type { HttpResponse } from '../http/http-exchange.js';

export { type BodyReadResult, declaresTooLarge, readLimited } from '../http/limited-body.js';

/** The body of a neutral response as a `Buffer` (see `bufferOf`), for Node response objects. */
export function bodyBuffer(response: HttpResponse): Buffer {
  return bufferOf(response.body);
}
