import { RequestKey } from '../../../../packages/payonce/src/core/request-key.js';

/** Hostile key parts of the hammer: glob characters, the hash-tag braces, ':' and unicode in provider and id. */
export function keyOf(runId: string, index: number): RequestKey {
  return new RequestKey(`p*?[${index % 3}]\\:{x}ü`, `evt:{y}*?[]\\ключ-${runId}-${index}`);
}
