import { PayonceError, StoreUnavailable } from './errors.js';

/**
 * Printable, storable text of anything a handler (or a store) threw, at most `maxChars` code points: never
 * throws, well-formed Unicode, no NUL (PostgreSQL text refuses it).
 */
export function errorText(error: unknown, maxChars: number): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    text = '[a thrown value that cannot be converted to text]';
  }
  const clean = text.toWellFormed().replaceAll('\u0000', '\uFFFD');
  const chars = Array.from(clean);
  return chars.length <= maxChars ? clean : chars.slice(0, maxChars).join('');
}

/** What a store's failure in `operation` is rethrown as: a `PayonceError` as is, anything else as `StoreUnavailable`. */
export function storeError(operation: string, error: unknown): unknown {
  return error instanceof PayonceError ? error : new StoreUnavailable(operation, error);
}

/** Runs the store call `fn`. @throws {StoreUnavailable} it failed with anything but a `PayonceError` (the `cause`). */
export async function storeCall<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw storeError(operation, error);
  }
}
